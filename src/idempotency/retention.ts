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

/** One sweep: at most SWEEP_BATCHES × SWEEP_BATCH keys. Returns how many were deleted. */
export async function sweepExpiredKeys(services: Services): Promise<number> {
  const before = services.clock.now() - IDEMPOTENCY_RETENTION_MS;
  let deleted = 0;
  for (let batch = 0; batch < SWEEP_BATCHES; batch++) {
    const expired = await services.database.reader
      .selectFrom("idempotency_keys")
      .select(["workspace_id", "key"])
      .where("created_at", "<", before)
      .orderBy("created_at")
      .limit(SWEEP_BATCH)
      .execute();
    if (expired.length === 0) break;
    await services.database.write(async (trx) => {
      for (const row of expired) {
        await trx
          .deleteFrom("idempotency_keys")
          .where("workspace_id", "=", row.workspace_id)
          .where("key", "=", row.key)
          .where("created_at", "<", before)
          .execute();
      }
    });
    deleted += expired.length;
    if (expired.length < SWEEP_BATCH) break;
  }
  return deleted;
}
