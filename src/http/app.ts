import Fastify, {
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
} from "fastify";
import { Counter } from "prom-client";
import { AuthCache, localAuthWrites } from "../areas/workspaces/auth-cache.js";
import { authenticate } from "../areas/workspaces/service.js";
import type { Config, TrustProxy } from "../config.js";
import { type Ctx, contextFor, type Services, type Workspace } from "../context.js";
import { asTenant } from "../db/admission.js";
import { ApiError } from "../errors.js";
import { runClaimingKey } from "../idempotency/claim.js";
import {
  IDEMPOTENCY_HEADER,
  type IdempotentRequest,
  idempotentRequest,
  priorAnswer,
} from "../idempotency/keys.js";
import { randomId } from "../lib/ids.js";
import { registerQuotaMetrics } from "../quotas/metrics.js";
import { withAliases } from "./aliases.js";
import { JSON_TYPE, noStore, optionalBody, render } from "./answer.js";
import { AuthSignal } from "./auth-signal.js";
import { bodyUnbounded, registerJsonParser } from "./body.js";
import { byteLimits } from "./byte-limits.js";
import { addressGroup, capConnectionsPerAddress, clientErrorHandler, serverTimeouts } from "./connections.js";
import { registerConsole } from "./console.js";
import { errorBody, formatSchemaErrors, toApiError } from "./errors.js";
import { ForwardWrite, type WriteForwarder } from "./forward.js";
import { lazyValidators } from "./lazy-validators.js";
import { registerAdmissionMetrics, withLimits } from "./limits.js";
import { registerObservability } from "./observability.js";
import { registerOpenApi } from "./openapi.js";
import type { Operation, Outcome } from "./operation.js";
import { allOperations, allOperatorOperations, allRefusals } from "./operations.js";
import { registerOperatorApi, registerRefusals } from "./operator.js";
import { Envelope } from "./schemas.js";
import { localLimits, type RequestLimits } from "./shared-limits.js";

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
  /**
   * A worker of a SQLite service with COLLABD_WORKERS > 1 (src/cli/writer.ts): requests that
   * write are re-run in the writer process.
   */
  readonly forward?: WriteForwarder;
  /** A worker of COLLABD_WORKERS > 1: the supervisor's limits (shared-limits.ts). Default: this process's own. */
  readonly limits?: RequestLimits;
}

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
    // request.ip: the client behind a reverse proxy when COLLABD_TRUST_PROXY names it (docs/deployment.md).
    trustProxy: fastifyTrustProxy(config.transport.trustProxy),
    bodyLimit: config.bodyLimitBytes,
    ...serverTimeouts(config.transport),
    clientErrorHandler: clientErrorHandler(config.transport.requestTimeoutMs),
    // Shutting down is answered by our hook below, in the error shape (docs/contract.md "Answers and errors").
    return503OnClosing: false,
    ajv: {
      // Ids are bounded in bytes too (schemas.ts `x-maxBytes`).
      plugins: [byteLimits],
      // Wrong types are errors, never coerced; unknown fields are errors, never dropped (docs/contract.md "Requests").
      customOptions: {
        coerceTypes: false,
        removeAdditional: false,
        useDefaults: false,
        allErrors: false,
        // Ajv's pass that tidies generated code costs a third of compiling every operation's
        // validator at start-up and saves nothing measurable per request (docs/decisions.md).
        code: { optimize: false },
      },
    },
    schemaErrorFormatter: (errors) => formatSchemaErrors(errors),
    schemaController: { compilersFactory: { buildValidator: lazyValidators() } },
  });
  app.decorateRequest("ctx", null as unknown as Ctx);
  const admission = registerJsonParser(app, config.bodyLimitBytes, config.bodyBytesInFlight);

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
    if (apiError.retryAfterS !== undefined) reply.header("retry-after", String(apiError.retryAfterS));
    // Refused before its body was read (auth, rate limit): Node would read the rest to keep the
    // connection; when that rest is unbounded (chunked, or declared huge), close instead.
    if (!request.raw.complete && bodyUnbounded(request.headers, config.bodyLimitBytes))
      reply.header("connection", "close");
    return reply.code(apiError.httpStatus).type(JSON_TYPE).send(errorBody(apiError));
  });

  const operations = withAliases(options.operations ?? allOperations);
  const refusals = withAliases(allRefusals);
  const operationPaths = new Set([...operations, ...allOperatorOperations, ...refusals].map((op) => op.path));
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0] ?? "";
    const error = operationPaths.has(path)
      ? new ApiError("INVALID_ARGUMENT", `Method ${request.method} is not allowed; use POST.`, undefined, 405)
      : new ApiError("NOT_FOUND", `Route ${request.method} ${path} not found.`);
    if (error.httpStatus === 405) reply.header("allow", "POST");
    return reply.code(error.httpStatus).type(JSON_TYPE).send(errorBody(error));
  });

  const registry = registerObservability(app, services.database, {
    defaultMetrics: options.defaultMetrics ?? false,
    isReady: () => ready,
    metricsToken: config.metricsToken,
  });
  const refused = new Counter({
    name: "collabd_connections_refused_total",
    help: "Connections closed on accept because their client address already had the maximum open.",
    registers: [registry],
  });
  registerAdmissionMetrics(registry, admission);
  registerQuotaMetrics(app, registry, services);
  await registerOpenApi(app, options.operations ?? allOperations);
  registerConsole(app);

  if (config.benchEcho) {
    app.post("/bench/echo", async (request, reply) =>
      reply
        .type(JSON_TYPE)
        .send(render({ message: "Echo.", data: (request.body as { data?: unknown })?.data ?? null })),
    );
  }

  const limits =
    options.limits ??
    localLimits(
      config.rateLimitPerMinute,
      config.transport.authFailuresPerMinute,
      services.clock,
      config.transport.maxConnectionsPerAddress,
    );
  capConnectionsPerAddress(app.server, config.transport.maxConnectionsPerAddress, limits, () =>
    refused.inc(),
  );
  const bodySchema = bodySchemas(config);
  await registerRefusals(app, refusals);
  await registerOperatorApi(app, services, {
    operations: allOperatorOperations,
    limits,
    bodySchema,
    ...(options.forward ? { forward: options.forward } : {}),
  });
  const authSignal = services.database.dialect === "postgres" ? new AuthSignal() : null;
  if (authSignal) {
    // LISTEN needs a session of its own: never through a transaction pooler.
    await authSignal.start(config.databaseDirectUrl ?? config.databaseUrl, app.log);
    app.addHook("onClose", () => authSignal.close());
  }
  const authCache = new AuthCache(
    () => {
      const external = authSignal ? authSignal.version() : services.database.externalVersion();
      return external === null ? null : `${external}:${localAuthWrites()}`;
    },
    () => services.clock.now(),
    config.authCacheMaxAgeMs,
  );
  await app.register(async (scope) => {
    scope.addHook("onSend", noStore);
    const signIn = async (request: FastifyRequest, apiKey: unknown, authToken: unknown, inBody = false) => {
      const address = addressGroup(request.ip);
      let workspace: Workspace;
      try {
        workspace = await authenticate(services.database.reader, apiKey, authToken, authCache, inBody);
      } catch (error) {
        throw isAuthFailure(error) ? await limits.failed(address, apiKey, error) : error;
      }
      await limits.take(workspace.id);
      request.ctx = contextFor(services, workspace, request.id);
    };
    scope.addHook("onRequest", async (request) => {
      limits.admit(addressGroup(request.ip));
      // Credentials in the body are checked once it is read and validated (preHandler below).
      if (credentialsInBody(request)) return;
      await signIn(request, request.headers["x-svc-api-key"], request.headers["x-svc-auth-token"]);
    });
    scope.addHook("preHandler", async (request) => {
      if (!credentialsInBody(request)) return;
      const data = (request.body as { data: { apiKey?: unknown; authToken?: unknown } }).data;
      await signIn(request, data.apiKey, data.authToken, true);
    });
    const run = forwarding(services, options.forward);
    for (const op of operations) registerOperation(scope, op, bodySchema, run);
  });

  return app;
}

/** COLLABD_TRUST_PROXY as Fastify takes it (its types leave out the hop count proxy-addr accepts). */
function fastifyTrustProxy(
  trust: TrustProxy,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === "number") return (_address, hop) => hop < trust;
  return typeof trust === "boolean" ? trust : [...trust];
}

/**
 * The request body's schema for each operation, one object per data schema: a v1 alias shares
 * its operation's, so Ajv (which caches by schema object) compiles each validator once, not once
 * per path — start-up time.
 */
function bodySchemas(config: Config): (op: { readonly data: Operation["data"] }) => object {
  const byData = new Map<object, object>();
  return (op) => {
    let schema = byData.get(op.data);
    if (schema === undefined) {
      schema = Envelope(withLimits(op.data, config));
      byData.set(op.data, schema);
    }
    return schema;
  };
}

type Run = (op: Operation, ctx: Ctx, data: never, key: IdempotentRequest | null) => Promise<Outcome>;

/** Runs the operation here, claiming the request's Idempotency-Key with its first write. */
const runHere = (op: Operation, ctx: Ctx, data: never, key: IdempotentRequest | null) =>
  key
    ? runClaimingKey(ctx, key, op.httpStatus ?? 200, (claiming) => op.handle(claiming, data))
    : op.handle(ctx, data);

/**
 * How a route runs its operation: here, or — in a forwarding worker, once the handler
 * reaches `ctx.write` — again in the writer process, whose answer (Outcome or error) is
 * this request's. Storage faults of forwarded writes feed this process's `/healthz`.
 * An operation seen to write in a workspace goes to the writer straight away for that
 * workspace from then on: its reads and validation are not done twice (the writer answers
 * the same errors). Per workspace and operation: one workspace's first-time write (a
 * `webhookconfig/get` that seeds its row) says nothing about another's reads.
 */
function forwarding(services: Services, forward: WriteForwarder | undefined): Run {
  if (!forward) return runHere;
  const writers = new BoundedSet(SEEN_WRITING_MAX);
  const inWriter = (op: Operation, ctx: Ctx, data: unknown, key: IdempotentRequest | null) =>
    services.database.storage.watch(
      forward.operation(op.aliasOf?.path ?? op.path, ctx.workspace, ctx.requestId, data, key),
    );
  return async (op, ctx, data, key) => {
    const seen = `${ctx.workspace.id} ${op.aliasOf?.path ?? op.path}`;
    if (writers.has(seen)) return inWriter(op, ctx, data, key);
    try {
      return await runHere(op, ctx, data, key);
    } catch (error) {
      if (!(error instanceof ForwardWrite)) throw error;
      writers.add(seen);
      return inWriter(op, ctx, data, key);
    }
  };
}

/** Workspace × operation pairs a worker remembers as writing; the oldest are forgotten first. */
const SEEN_WRITING_MAX = 10_000;

/** A set that forgets its oldest entries beyond `max`: a memo, never a source of truth. */
class BoundedSet {
  private readonly entries = new Set<string>();
  constructor(private readonly max: number) {}
  has(key: string): boolean {
    return this.entries.has(key);
  }
  add(key: string): void {
    this.entries.add(key);
    if (this.entries.size > this.max) this.entries.delete(this.entries.values().next().value as string);
  }
}

function registerOperation(
  scope: FastifyInstance,
  op: Operation,
  bodySchema: (op: { readonly data: Operation["data"] }) => object,
  run: Run,
): void {
  scope.post(
    op.path,
    {
      // Validates the request; the responses are documented in /openapi.json (openapi-document.ts).
      schema: { body: bodySchema(op) },
      ...optionalBody(op.bodyOptional, { credentialsInBody: op.credentials === "body" }),
    },
    async (request, reply) => {
      const { ctx } = request;
      const data = (request.body as { data: never }).data;
      const key = idempotentRequest(request.headers[IDEMPOTENCY_HEADER], op.aliasOf?.path ?? op.path, data);
      // Its connections count against its workspace's share of the PostgreSQL pool (db/admission.ts).
      const answered = await asTenant(ctx.workspace.id, async () => {
        const prior = key ? await priorAnswer(ctx.reader, ctx, key, keyInProgressMs(ctx)) : null;
        return (
          prior ?? { statusCode: op.httpStatus ?? 200, outcome: await run(op, ctx, data, key), fresh: true }
        );
      });
      if (!("fresh" in answered)) reply.header("idempotent-replayed", "true");
      const outcome = answered.outcome;
      return reply
        .code(answered.statusCode)
        .type(JSON_TYPE)
        .send(render(outcome, op.nextPageToken === true, op.withoutData === true));
    },
  );
}

/** A claimed key without an answer counts as still running for this long (its request may still be). */
function keyInProgressMs(ctx: Ctx): number {
  const timeout = ctx.config.transport.requestTimeoutMs;
  return (timeout > 0 ? timeout : 60_000) + 30_000;
}

/** The route's operation takes its credentials from `data` (Operation.credentials). */
function credentialsInBody(request: FastifyRequest): boolean {
  return (request.routeOptions.config as { credentialsInBody?: boolean }).credentialsInBody === true;
}

/** A refusal of the credentials themselves (not, say, the database being down). */
function isAuthFailure(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    (error.status === "INVALID_ARGUMENT" ||
      error.status === "PERMISSION_DENIED" ||
      error.status === "UNAUTHENTICATED")
  );
}
