import swagger from "@fastify/swagger";
import swaggerUi from "@fastify/swagger-ui";
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import secureJson from "secure-json-parse";
import { AuthCache, localAuthWrites } from "../areas/workspaces/auth-cache.js";
import { authenticate } from "../areas/workspaces/service.js";
import type { Config } from "../config.js";
import { type Ctx, contextFor, type Services } from "../context.js";
import { ApiError, invalidArgument } from "../errors.js";
import { randomId } from "../lib/ids.js";
import { errorBody, formatSchemaErrors, toApiError } from "./errors.js";
import { withLimits } from "./limits.js";
import { registerObservability } from "./observability.js";
import type { Operation, Outcome } from "./operation.js";
import { allOperations } from "./operations.js";
import { RateLimited, RateLimiter } from "./rate-limit.js";
import { Envelope, ErrorBody, Success } from "./schemas.js";

declare module "fastify" {
  interface FastifyRequest {
    ctx: Ctx;
  }
}

export interface AppOptions {
  /** pino options, or false for silence (tests capture logs through a stream). */
  readonly logger?: FastifyServerOptions["logger"];
  readonly loggerInstance?: FastifyServerOptions["loggerInstance"];
  /** Process-level metrics (event loop, memory); off in tests, where many apps share a process. */
  readonly defaultMetrics?: boolean;
  readonly operations?: readonly Operation[];
}

const JSON_TYPE = "application/json; charset=utf-8";

/** Builds the HTTP service: transport, auth, observability, OpenAPI and every operation. */
export async function buildApp(services: Services, options: AppOptions = {}): Promise<FastifyInstance> {
  const { config } = services;
  const app = Fastify({
    ...(options.loggerInstance
      ? { loggerInstance: options.loggerInstance }
      : { logger: options.logger ?? false }),
    // One line per request, written by the onResponse hook (observability.ts).
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => randomId(),
    bodyLimit: config.bodyLimitBytes,
    // Shutting down is answered by our hook below, in the error shape (DESIGN §2).
    return503OnClosing: false,
    ajv: {
      // Wrong types are errors, never coerced; unknown fields are errors, never dropped (DESIGN §2).
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false },
    },
    schemaErrorFormatter: (errors) => formatSchemaErrors(errors),
  });
  app.decorateRequest("ctx", null as unknown as Ctx);
  registerJsonParser(app);

  let ready = false;
  app.addHook("onReady", async () => {
    ready = true;
  });
  let closing = false;
  app.addHook("preClose", async () => {
    ready = false;
    closing = true;
  });
  app.addHook("onRequest", async () => {
    if (closing) throw new ApiError("UNAVAILABLE", "The service is shutting down.");
  });
  app.addHook("onSend", async (_request, reply) => {
    // While draining, every answer closes its connection: keep-alive clients would otherwise hold close() open.
    if (closing) reply.header("connection", "close");
  });

  app.setErrorHandler((error, request, reply) => {
    const { error: apiError, internal } = toApiError(error, config.bodyLimitBytes);
    if (internal) request.log.error({ err: error }, "request failed");
    if (apiError instanceof RateLimited) reply.header("retry-after", String(apiError.retryAfterS));
    return reply.code(apiError.httpStatus).type(JSON_TYPE).send(errorBody(apiError));
  });

  const operations = options.operations ?? allOperations;
  const operationPaths = new Set(operations.map((op) => op.path));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    const error = operationPaths.has(path)
      ? new ApiError("INVALID_ARGUMENT", `Method ${request.method} is not allowed; use POST.`, undefined, 405)
      : new ApiError("NOT_FOUND", `Route ${request.method} ${path} not found.`);
    if (error.httpStatus === 405) reply.header("allow", "POST");
    return reply.code(error.httpStatus).type(JSON_TYPE).send(errorBody(error));
  });

  registerObservability(app, services.database, {
    defaultMetrics: options.defaultMetrics ?? false,
    isReady: () => ready,
  });
  await registerOpenApi(app);

  if (config.benchEcho) {
    app.post("/bench/echo", { schema: { hide: true } }, async (request, reply) =>
      reply
        .type(JSON_TYPE)
        .send(render({ message: "Echo.", data: (request.body as { data?: unknown })?.data ?? null })),
    );
  }

  const limiter = new RateLimiter(config.rateLimitPerMinute, services.clock);
  const authCache = new AuthCache(() => {
    const external = services.database.externalVersion();
    return external === null ? null : `${external}:${localAuthWrites()}`;
  });
  await app.register(async (scope) => {
    scope.addHook("onRequest", async (request) => {
      const workspace = await authenticate(
        services.database.reader,
        request.headers["x-svc-api-key"],
        request.headers["x-svc-auth-token"],
        authCache,
      );
      limiter.take(workspace.id);
      request.ctx = contextFor(services, workspace, request.id);
    });
    for (const op of operations) registerOperation(scope, op, config);
  });

  return app;
}

function registerOperation(scope: FastifyInstance, op: Operation, config: Config): void {
  scope.post(
    op.path,
    {
      schema: {
        summary: op.summary,
        ...(op.description ? { description: op.description } : {}),
        tags: [op.tag],
        body: Envelope(withLimits(op.data, config)),
        response: { 200: Success(op.result, { list: op.list ?? false }), "4xx": ErrorBody, "5xx": ErrorBody },
      },
    },
    async (request, reply) => {
      const outcome = await op.handle(request.ctx, (request.body as { data: never }).data);
      return reply.type(JSON_TYPE).send(render(outcome));
    },
  );
}

/**
 * JSON is the only body type. The parser is Fastify's own (secure-json-parse), kept
 * here so that a `__proto__`/`constructor` key gets its own message instead of "not JSON".
 */
function registerJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = body as string;
    if (text === "")
      return done(invalidArgument("The request body must be a JSON object with a data object."));
    try {
      done(null, secureJson.parse(text, undefined, { protoAction: "error", constructorAction: "error" }));
    } catch (error) {
      const forbidden = /prototype/.test((error as Error).message);
      done(
        invalidArgument(
          forbidden
            ? "The request body contains a forbidden key (__proto__ or constructor)."
            : "The request body is not valid JSON.",
        ),
      );
    }
  });
}

/** Serializes the success envelope; `rawData` is spliced in as already-serialized JSON. */
export function render(outcome: Outcome): string {
  const head = `{"result":{"status":"success","message":${JSON.stringify(outcome.message)},"data":`;
  const data = outcome.rawData ?? JSON.stringify(outcome.data ?? null);
  const tail = outcome.pageToken === undefined ? "}}" : `,"pageToken":${JSON.stringify(outcome.pageToken)}}}`;
  return head + data + tail;
}

async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "collabd",
        version: "2",
        description:
          'Self-hosted collaboration data service. Every operation is a POST with body `{"data": {...}}`; ' +
          'failures are `{"error": {"status", "message", "details"}}` with the HTTP status fixed by the status.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "x-svc-api-key" },
          authToken: { type: "apiKey", in: "header", name: "x-svc-auth-token" },
        },
      },
      security: [{ apiKey: [], authToken: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: "/docs", uiConfig: { docExpansion: "list" } });
  app.get("/openapi.json", { schema: { hide: true } }, async () => app.swagger());
}
