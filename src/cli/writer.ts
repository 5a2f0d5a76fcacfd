import cluster, { type Worker } from "node:cluster";
import type { Logger } from "pino";
import { collectDefaultMetrics, Registry } from "prom-client";
import { contextFor, type Services } from "../context.js";
import { withAliases } from "../http/aliases.js";
import { toApiError } from "../http/errors.js";
import { FORWARD, type ForwardAnswer, type ForwardRequest, toWire } from "../http/forward.js";
import { allJobTypes } from "../http/job-types.js";
import type { Operation } from "../http/operation.js";
import { allOperations } from "../http/operations.js";
import { registerStorageMetrics } from "../http/storage-metrics.js";
import { JobWorker } from "../jobs/worker.js";
import { DeliveryWorker } from "../webhooks/worker.js";

/** Webhook attempts in flight get this long to finish on shutdown, as in one process (serve.ts). */
const WEBHOOK_DRAIN_MS = 8_000;

/** The supervisor of a SQLite service with COLLABD_WORKERS > 1: the one process that writes. */
export interface Writer {
  /** Group commits, WAL syncs, checkpoints and this process's memory, summed into `/metrics`. */
  readonly registry: Registry;
  /** Webhook deliveries and erasure jobs, once the first workspace exists and the workers listen. */
  startBackgroundWork(): void;
  /** Shutdown began: webhook attempts in flight start draining while the workers drain their requests. */
  stopping(): void;
  /** Once every worker has exited: no forwarded write is left; stops the background work, closes the database. */
  close(): Promise<void>;
}

export function startWriter(services: Services, logger: Logger): Writer {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "collabd_" });
  const stopMetrics = registerStorageMetrics(logger, services.database, registry);
  const idle = serveForwardedWrites(services, logger);
  let delivery: DeliveryWorker | null = null;
  let erasure: JobWorker | null = null;
  let drained: Promise<void> | null = null;
  return {
    registry,
    startBackgroundWork: () => {
      // A signal that came during start-up: nothing to start, close() follows.
      if (drained) return;
      delivery = new DeliveryWorker(services, { log: logger.child({ component: "webhooks" }) });
      delivery.start();
      erasure = new JobWorker(services, allJobTypes, logger.child({ component: "jobs" }));
      erasure.start();
    },
    stopping: () => {
      drained ??= delivery?.stop(WEBHOOK_DRAIN_MS) ?? Promise.resolve();
    },
    close: async () => {
      drained ??= delivery?.stop(WEBHOOK_DRAIN_MS) ?? Promise.resolve();
      await idle();
      await Promise.all([drained, erasure?.stop()]);
      stopMetrics();
      await services.database.close();
    },
  };
}

/**
 * The writer's end of forwarded writes (SQLite with COLLABD_WORKERS > 1; src/http/forward.ts):
 * answers each worker's request on this process's database — its group commit and WAL sync.
 * Returns a function that resolves once no forwarded request is running.
 */
function serveForwardedWrites(services: Services, logger: Logger): () => Promise<void> {
  const answer = forwardedWrites(services, logger.child({ component: "writer" }));
  const running = new Set<Promise<void>>();
  cluster.on("message", (worker: Worker, message: ForwardRequest) => {
    if (message?.type !== FORWARD) return;
    const done = answer(message).then((reply) => {
      // A worker that exited meanwhile has no one waiting; the write itself is committed or not.
      // The callback takes a send error that would otherwise be an 'error' event, fatal here.
      if (worker.isConnected()) worker.send(reply, undefined, undefined, () => {});
    });
    running.add(done);
    void done.finally(() => running.delete(done));
  });
  return async () => {
    while (running.size > 0) await Promise.allSettled([...running]);
  };
}

/**
 * Runs one forwarded request: the operation at its path with the worker's workspace and
 * request id, answered with the Outcome once the write is durable, or with the error as
 * plain data. An internal error is logged here, where its stack is; the worker answers it
 * as one process would (500, or 503 for the database).
 */
export function forwardedWrites(
  services: Services,
  log: { error(fields: object, message: string): void },
): (message: ForwardRequest) => Promise<ForwardAnswer> {
  const byPath = new Map<string, Operation>(withAliases(allOperations).map((op) => [op.path, op]));
  return async (message) => {
    const { id } = message;
    try {
      if (message.kind === "probe") {
        const state = await services.database.storage.check();
        if (!state.writable) throw Object.assign(new Error("storage probe failed"), { code: state.code });
        return { type: FORWARD, id, outcome: null };
      }
      const op = byPath.get(message.path);
      if (!op) throw new Error(`no operation at ${message.path}`);
      const ctx = contextFor(services, message.workspace, message.requestId);
      const outcome = await op.handle(ctx, message.data as never);
      return { type: FORWARD, id, outcome };
    } catch (error) {
      const { internal } = toApiError(error, services.config.bodyLimitBytes);
      if (internal && message.kind === "operation") {
        log.error({ err: error, reqId: message.requestId, route: message.path }, "forwarded write failed");
      }
      return { type: FORWARD, id, error: toWire(error) };
    }
  };
}
