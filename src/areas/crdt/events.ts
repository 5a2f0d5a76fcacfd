import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import { emitEvents, type OutboxEvent } from "../../webhooks/outbox.js";
import type * as store from "./store.js";

/** How long `crdt.update_data` waits for more changes of the same store (docs/webhooks.md "What fires"). */
export const CRDT_EVENT_DELAY_MS = 5_000;

/**
 * Emits `crdt.update_data` for a store's change, debounced per store: the first change after
 * a quiet spell writes the event due CRDT_EVENT_DELAY_MS later; a change while it still waits
 * replaces it (its deliveries not yet attempted are dropped) with one carrying the newer
 * content, due at the same time, so an event goes out at most every 5 s per store and always
 * with the content as of its last change. Answers what the row keeps of the waiting event.
 */
export async function emitDebounced(
  trx: WriteTx,
  ctx: Ctx,
  row: Pick<store.StoreRow, "event_id" | "event_due">,
  event: OutboxEvent,
  now: number,
): Promise<{ event_id: string | null; event_due: number | null }> {
  let due = now + CRDT_EVENT_DELAY_MS;
  if (row.event_id !== null && row.event_due !== null && row.event_due > now) {
    await dropWaiting(trx, ctx.workspace.id, row.event_id);
    due = row.event_due;
  }
  const [id] = await emitEvents(trx, ctx, [event], { delayMs: due - now });
  return id === undefined ? { event_id: null, event_due: null } : { event_id: id, event_due: due };
}

/** Removes the event's deliveries no worker has claimed or tried, and the event once none is left. */
async function dropWaiting(trx: WriteTx, workspaceId: string, eventId: string): Promise<void> {
  const event = await trx
    .selectFrom("webhook_events")
    .select("created_at")
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", eventId)
    .executeTakeFirst();
  if (!event) return;
  // An event's deliveries share its created_at: that finds them through the log's index.
  const ofEvent = trx
    .deleteFrom("webhook_deliveries")
    .where("workspace_id", "=", workspaceId)
    .where("created_at", "=", event.created_at)
    .where("event_id", "=", eventId);
  await ofEvent
    .where("status", "=", "pending")
    .where("attempts", "=", 0)
    .where("claim", "is", null)
    .execute();
  const left = await trx
    .selectFrom("webhook_deliveries")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where("created_at", "=", event.created_at)
    .where("event_id", "=", eventId)
    .limit(1)
    .executeTakeFirst();
  if (!left)
    await trx
      .deleteFrom("webhook_events")
      .where("workspace_id", "=", workspaceId)
      .where("id", "=", eventId)
      .execute();
}
