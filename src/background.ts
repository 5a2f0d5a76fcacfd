import type { Services } from "./context.js";
import { allJobTypes } from "./http/job-types.js";
import { startKeyRetention } from "./idempotency/retention.js";
import { JobWorker } from "./jobs/worker.js";
import { DeliveryWorker, type WorkerLog } from "./webhooks/worker.js";

/** Webhook attempts in flight get this long to finish on shutdown; the rest are handed back. */
const WEBHOOK_DRAIN_MS = 8_000;

/** A pino logger, or Fastify's. */
interface Log {
  child(bindings: { component: string }): WorkerLog;
}

/** What runs beside the requests of a process that writes. */
export interface BackgroundWork {
  /** Shutdown began: webhook attempts in flight start draining while requests drain. */
  stopping(): void;
  /** Waits for the drain and stops every worker; the database may be closed after. */
  stop(): Promise<void>;
}

/**
 * The one place background workers start (docs/architecture.md "Processes"): the webhook
 * delivery worker with its retention, the durable jobs worker (user-data erasure, delete
 * sweeps) and the expiry of Idempotency-Keys. Every process that
 * writes runs them — one process, each PostgreSQL worker, the SQLite writer process — and a
 * process that forwards its writes runs none. The WAL checkpointer belongs to the database
 * handle (src/db/database.ts), which only the writing process opens with it.
 * `webhooks: false` is for tests, which drive their own delivery worker.
 */
export function startBackgroundWork(
  services: Services,
  log: Log,
  options: { readonly webhooks?: boolean } = {},
): BackgroundWork {
  const delivery =
    options.webhooks === false
      ? null
      : new DeliveryWorker(services, { log: log.child({ component: "webhooks" }) });
  const erasure = new JobWorker(services, allJobTypes, log.child({ component: "jobs" }));
  delivery?.start();
  erasure.start();
  const stopKeyRetention = startKeyRetention(services, log.child({ component: "idempotency" }));
  let drained: Promise<void> | null = null;
  const drain = () => {
    drained ??= delivery?.stop(WEBHOOK_DRAIN_MS) ?? Promise.resolve();
    return drained;
  };
  return {
    stopping: () => void drain(),
    stop: async () => {
      stopKeyRetention();
      await Promise.all([drain(), erasure.stop()]);
    },
  };
}
