import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";
import { AUTH_MESSAGES } from "../areas/workspaces/service.js";
import type { Database } from "../db/database.js";
import { ApiError } from "../errors.js";
import { metricsText, shareMetrics } from "./cluster-metrics.js";
import { registerStorageMetrics } from "./storage-metrics.js";

/** Auth failure messages (docs/contract.md "Authentication") to the `reason` label of collabd_auth_failures_total. */
const AUTH_FAILURE_REASONS: Record<string, string> = {
  [AUTH_MESSAGES.missingKey]: "missing_api_key",
  [AUTH_MESSAGES.missingToken]: "missing_auth_token",
  [AUTH_MESSAGES.unknownKey]: "unknown_api_key",
  [AUTH_MESSAGES.wrongToken]: "wrong_auth_token",
};

/**
 * Request metrics and logs (docs/contract.md "Running the service"): one JSON line per request with request id,
 * API key (never a token), route, status and duration; counters and latency
 * histograms per operation on `/metrics`; `/healthz` answering for the database.
 */
export function registerObservability(
  app: FastifyInstance,
  database: Database,
  options: { defaultMetrics: boolean; isReady: () => boolean; metricsToken: string | null },
): Registry {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: "collabd_" });
  const stopStorageMetrics = registerStorageMetrics(app.log, database, registry);
  app.addHook("onClose", async () => stopStorageMetrics());
  shareMetrics(registry);
  const requests = new Counter({
    name: "collabd_http_requests_total",
    help: "HTTP requests by operation and status code.",
    labelNames: ["operation", "code"],
    registers: [registry],
  });
  const duration = new Histogram({
    name: "collabd_http_request_duration_seconds",
    help: "HTTP request latency by operation.",
    labelNames: ["operation"],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  const authFailures = new Counter({
    name: "collabd_auth_failures_total",
    help: "Requests refused by authentication, by reason.",
    labelNames: ["reason"],
    registers: [registry],
  });
  for (const reason of Object.values(AUTH_FAILURE_REASONS)) authFailures.inc({ reason }, 0);
  app.addHook("onError", async (_request, _reply, error) => {
    const reason = error instanceof ApiError ? AUTH_FAILURE_REASONS[error.message] : undefined;
    if (reason) authFailures.inc({ reason });
  });

  app.addHook("onSend", async (request, reply) => {
    reply.header("x-request-id", request.id);
  });

  app.addHook("onResponse", async (request, reply) => {
    const operation = request.routeOptions.url ?? "unmatched";
    const seconds = reply.elapsedTime / 1000;
    requests.inc({ operation, code: reply.statusCode });
    duration.observe({ operation }, seconds);
    request.log.info(
      {
        // Only a key that authenticated: an unknown "key" may be a token sent in the wrong header.
        apiKey: request.ctx?.workspace.id,
        method: request.method,
        route: operation,
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      "request",
    );
  });

  app.get("/healthz", async (_request, reply) => {
    const ok = options.isReady() && (await pingWithin(database, HEALTH_TIMEOUT_MS));
    if (!ok) return reply.code(503).send({ status: "unavailable" });
    // Writes failing for want of storage: still 200, as reads are served (docs/decisions.md "Quotas and storage faults").
    const storage = await database.storage.check();
    return reply.send(
      storage.writable
        ? { status: "ok" }
        : { status: "degraded", writes: "failing", cause: storage.code, since: storage.since },
    );
  });

  const metricsAllowed = bearerCheck(options.metricsToken);
  app.get("/metrics", async (request, reply) => {
    if (!metricsAllowed(request.headers.authorization)) {
      throw new ApiError("UNAUTHENTICATED", "/metrics needs Authorization: Bearer <COLLABD_METRICS_TOKEN>.");
    }
    return reply.type(registry.contentType).send(await metricsText(registry));
  });

  return registry;
}

/**
 * With a token configured, whether an Authorization header carries it (compared as hashes
 * in constant time: its length is not told either); without one, everyone may scrape.
 */
function bearerCheck(token: string | null): (header: string | undefined) => boolean {
  if (token === null) return () => true;
  const expected = createHash("sha256").update(token).digest();
  return (header) => {
    const presented = header?.startsWith("Bearer ") ? header.slice(7) : "";
    return timingSafeEqual(createHash("sha256").update(presented).digest(), expected);
  };
}

/** A database that does not answer within this long is unavailable (a partition hangs, not fails). */
const HEALTH_TIMEOUT_MS = 2000;

function pingWithin(database: Database, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  return Promise.race([database.ping(), late]).finally(() => clearTimeout(timer));
}
