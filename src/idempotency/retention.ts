import type { Services } from "../context.js";
import { IDEMPOTENCY_RETENTION_MS } from "./keys.js";

/** Keys deleted per transaction: a sweep never holds the writer long. */
const SWEEP_BATCH = 500;
/** Batches per sweep at most; the rest waits for the next sweep. */
const SWEEP_BATCHES = 20;
const SWEEP_EVERY_MS = 10 * 60 * 1000;

/**
 * Deletes Idempotency-Keys older than a day, in bounded batches: started with the other
 * background work (src/background.ts). Returns a function that stops it.
 */
export function startKeyRetention(
  services: Services,
  log: { error(fields: object, message: string): void },
): () => void {
  const sweep = async () => {
    try {
      await sweepExpiredKeys(services);
    } catch (error) {
      log.error({ err: error }, "idempotency keys: could not delete expired keys");
    }
  };
  const timer = setInterval(() => void sweep(), SWEEP_EVERY_MS);
  timer.unref();
  void sweep();
  return () => clearInterval(timer);
}

/**
 * One sweep: at most SWEEP_BATCHES statements, each deleting the SWEEP_BATCH oldest expired
 * keys (one statement per batch, not per key). Returns how many were deleted.
 */
export async function sweepExpiredKeys(services: Services): Promise<number> {
  const before = services.clock.now() - IDEMPOTENCY_RETENTION_MS;
  let deleted = 0;
  for (let batch = 0; batch < SWEEP_BATCHES; batch++) {
    const gone = await services.database.write((trx) =>
      trx
        .deleteFrom("idempotency_keys")
        .where("created_at", "<", before)
        .where((eb) =>
          eb(
            eb.refTuple("workspace_id", "key"),
            "in",
            eb
              .selectFrom("idempotency_keys")
              .select(["workspace_id", "key"])
              .where("created_at", "<", before)
              .orderBy("created_at")
              .limit(SWEEP_BATCH)
              .$asTuple("workspace_id", "key"),
          ),
        )
        .executeTakeFirst(),
    );
    const count = Number(gone.numDeletedRows);
    deleted += count;
    if (count < SWEEP_BATCH) break;
  }
  return deleted;
}
