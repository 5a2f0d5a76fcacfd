import { setImmediate as yieldToLoop } from "node:timers/promises";
import { type ExpressionBuilder, type Kysely, sql } from "kysely";
import type { Tables } from "../db/tables.js";
import { bookkeeping } from "../db/transactions.js";

type Db = Kysely<Tables>;

/** Rows per statement, for erasure and retention alike: well under both dialects' parameter limits. */
export const HISTORY_BATCH = 500;

/** The payload of a delivery whose record was deleted: nothing is left to send. */
export const ERASED = "";

/** What a pending delivery of a deleted record says in the log. */
export const CANCELLED_ERASED = "Cancelled: its record was deleted, and its content with it.";

/**
 * Erases the content of every delivery of the given records (docs/webhooks.md, "Deleting
 * data"), in the caller's transaction so it commits with the delete: payloads are emptied,
 * pending deliveries end `failed` unsent, and the receivers' answers (which may echo the
 * payload) are dropped from the log, keeping status codes, times and counts. A delivery
 * in flight finishes its attempt; any later attempt finds no payload and sends nothing.
 */
export async function eraseRecordDeliveries(
  trx: Db,
  target: {
    readonly workspaceId: string;
    readonly organizationId: string;
    readonly kind: "activity" | "recording" | "comment" | "crdt";
    readonly recordIds: readonly string[];
    readonly now: number;
  },
): Promise<void> {
  const { workspaceId, now } = target;
  for (let i = 0; i < target.recordIds.length; i += HISTORY_BATCH) {
    const events = await trx
      .selectFrom("webhook_events")
      .select(["id", "created_at"])
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", target.organizationId)
      .where("record_id", "in", target.recordIds.slice(i, i + HISTORY_BATCH))
      .where("record_kind", "=", target.kind)
      .execute();
    if (events.length === 0) continue;
    // An event's deliveries share its created_at: that finds them through the log's index.
    const times = [...new Set(events.map((e) => Number(e.created_at)))];
    const ofEvents = (eb: ExpressionBuilder<Tables, "webhook_deliveries">) =>
      eb.and([
        eb("workspace_id", "=", workspaceId),
        eb("created_at", "in", times),
        eb(
          "event_id",
          "in",
          events.map((e) => e.id),
        ),
      ]);
    const erased = await trx
      .updateTable("webhook_deliveries")
      .set({
        payload: ERASED,
        last_error: sql<string | null>`case when last_http_status is null then last_error else null end`,
      })
      .where(ofEvents)
      .returning("id")
      .execute();
    if (erased.length === 0) continue;
    await trx
      .updateTable("webhook_deliveries")
      .set({ status: "failed", next_attempt_at: null, last_error: CANCELLED_ERASED, updated_at: now })
      .where(ofEvents)
      .where("status", "=", "pending")
      .execute();
    await trx
      .updateTable("webhook_attempts")
      .set({ error: null })
      .where("workspace_id", "=", workspaceId)
      .where(
        "delivery_id",
        "in",
        erased.map((d) => d.id),
      )
      .where("http_status", "is not", null)
      .execute();
  }
}

/**
 * Erases the content of the given deliveries, as eraseRecordDeliveries does for a deleted
 * record's: payload emptied, a pending one ended `failed` unsent, receivers' answers dropped
 * from the log. For user-data erasure (src/privacy), which finds deliveries by their text.
 */
export async function eraseDeliveryContent(
  trx: Db,
  workspaceId: string,
  deliveryIds: readonly string[],
  now: number,
): Promise<void> {
  if (deliveryIds.length === 0) return;
  const ids = [...deliveryIds];
  await trx
    .updateTable("webhook_deliveries")
    .set({
      payload: ERASED,
      last_error: sql<string | null>`case when last_http_status is null then last_error else null end`,
    })
    .where("workspace_id", "=", workspaceId)
    .where("id", "in", ids)
    .execute();
  await trx
    .updateTable("webhook_deliveries")
    .set({ status: "failed", next_attempt_at: null, last_error: CANCELLED_ERASED, updated_at: now })
    .where("workspace_id", "=", workspaceId)
    .where("id", "in", ids)
    .where("status", "=", "pending")
    .execute();
  await trx
    .updateTable("webhook_attempts")
    .set({ error: null })
    .where("workspace_id", "=", workspaceId)
    .where("delivery_id", "in", ids)
    .where("http_status", "is not", null)
    .execute();
}

/**
 * Deletes one batch of finished webhook history older than `cutoff` (by when it finished):
 * up to HISTORY_BATCH deliveries, their attempts, and the events left without deliveries.
 * Returns how many deliveries went; a full batch means there may be more.
 */
export async function pruneHistoryBatch(db: Db, cutoff: number): Promise<number> {
  return bookkeeping(db, async (trx) => {
    const old = await trx
      .selectFrom("webhook_deliveries")
      .select(["workspace_id", "id"])
      // Literal, so both planners match the partial index webhook_deliveries_finished.
      .where(sql<boolean>`status in ('succeeded', 'failed')`)
      .where("updated_at", "<", cutoff)
      .orderBy("updated_at")
      .limit(HISTORY_BATCH)
      .execute();
    if (old.length === 0) return 0;
    // Re-checked on delete: a retry may have made one live again meanwhile.
    const gone = await trx
      .deleteFrom("webhook_deliveries")
      .where((eb) =>
        eb(
          eb.refTuple("workspace_id", "id"),
          "in",
          old.map((d) => eb.tuple(d.workspace_id, d.id)),
        ),
      )
      .where(sql<boolean>`status in ('succeeded', 'failed')`)
      .where("updated_at", "<", cutoff)
      .returning(["workspace_id", "id", "event_id", "created_at"])
      .execute();
    if (gone.length === 0) return old.length;
    await trx
      .deleteFrom("webhook_attempts")
      .where((eb) =>
        eb(
          eb.refTuple("workspace_id", "delivery_id"),
          "in",
          gone.map((d) => eb.tuple(d.workspace_id, d.id)),
        ),
      )
      .execute();
    const events = [...new Map(gone.map((d) => [`${d.workspace_id}\u0000${d.event_id}`, d])).values()];
    await trx
      .deleteFrom("webhook_events as e")
      .where((eb) =>
        eb(
          eb.refTuple("e.workspace_id", "e.id"),
          "in",
          events.map((d) => eb.tuple(d.workspace_id, d.event_id)),
        ),
      )
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("webhook_deliveries as d")
              .select(sql`1`.as("one"))
              .whereRef("d.workspace_id", "=", "e.workspace_id")
              .whereRef("d.created_at", "=", "e.created_at")
              .whereRef("d.event_id", "=", "e.id"),
          ),
        ),
      )
      .execute();
    return old.length;
  });
}

/**
 * Deletes all finished history older than `cutoff`, batch by batch, yielding to the event
 * loop between batches so requests and deliveries keep flowing; stops early when `stop`
 * says so. Resolves with the number of deliveries deleted.
 */
export async function pruneHistory(
  db: Db,
  cutoff: number,
  stop: () => boolean = () => false,
): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await pruneHistoryBatch(db, cutoff);
    total += count;
    if (count < HISTORY_BATCH || stop()) return total;
    await yieldToLoop();
  }
}
