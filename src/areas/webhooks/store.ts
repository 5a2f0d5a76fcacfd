import { sql } from "kysely";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { WebhookAttemptRow, WebhookDeliveryRow } from "../../db/tables.js";
import { keysetTail } from "../../lib/paging.js";
import { ERASED } from "../../webhooks/history.js";
import type { DeliveryViewType } from "./schemas.js";

type Db = Readable;

export interface DeliveryFilter {
  readonly workspaceId: string;
  readonly status?: string;
  readonly event?: string;
  readonly ids?: readonly string[];
}

export type DeliveryKey = readonly [createdAt: number, id: string];

/** One page of the delivery log, newest first, keyset on (created_at, id). */
export async function listDeliveries(
  db: Db,
  filter: DeliveryFilter,
  after: DeliveryKey | null,
  limit: number,
): Promise<{ rows: WebhookDeliveryRow[]; next: DeliveryKey | null }> {
  let query = db.selectFrom("webhook_deliveries").selectAll().where("workspace_id", "=", filter.workspaceId);
  if (filter.status !== undefined) query = query.where("status", "=", filter.status);
  if (filter.event !== undefined) query = query.where("event", "=", filter.event);
  if (filter.ids) query = query.where("id", "in", [...filter.ids]);
  if (after) {
    query = query.where((eb) => eb(eb.refTuple("created_at", "id"), "<", eb.tuple(after[0], after[1])));
  }
  const rows = await query
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  return keysetTail(rows, limit, (last): DeliveryKey => [Number(last.created_at), last.id]);
}

export async function attemptsOf(
  db: Db,
  workspaceId: string,
  deliveryIds: readonly string[],
): Promise<WebhookAttemptRow[]> {
  if (deliveryIds.length === 0) return [];
  return db
    .selectFrom("webhook_attempts")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("delivery_id", "in", [...deliveryIds])
    .orderBy("delivery_id")
    .orderBy("attempt")
    .execute();
}

/** Each delivery's status, and whether its content was erased with its record. */
export async function deliveryStatuses(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
): Promise<Map<string, { status: string; erased: boolean }>> {
  const rows = await db
    .selectFrom("webhook_deliveries")
    .select(["id", "status", sql<number>`case when payload = ${ERASED} then 1 else 0 end`.as("erased")])
    .where("workspace_id", "=", workspaceId)
    .where("id", "in", [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, { status: r.status, erased: Number(r.erased) === 1 }]));
}

/**
 * Makes deliveries due now with a fresh retry schedule; a delivery in flight is left to
 * its worker. Returns the ids that were requeued.
 */
export async function requeue(
  db: WriteTx,
  workspaceId: string,
  ids: readonly string[],
  now: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable("webhook_deliveries")
    .set({ status: "pending", step: 0, next_attempt_at: now, claim: null, updated_at: now })
    .where("workspace_id", "=", workspaceId)
    .where("id", "in", [...ids])
    .where("status", "in", ["pending", "succeeded", "failed"])
    // Erased with its record (docs/webhooks.md): nothing left to send.
    .where("payload", "!=", ERASED)
    .returning("id")
    .execute();
  return rows.map((r) => r.id);
}

/** A delivery and its attempts as the delivery log shows them (storage names to the API's). */
export function rowToDeliveryView(
  row: WebhookDeliveryRow,
  attempts: readonly WebhookAttemptRow[],
  withPayload: boolean,
): DeliveryViewType {
  const view: DeliveryViewType = {
    webhookId: row.id,
    eventId: row.event_id,
    event: row.event,
    kind: row.kind as DeliveryViewType["kind"],
    url: row.url,
    status: row.status as DeliveryViewType["status"],
    attemptCount: row.attempts,
    lastHttpStatus: row.last_http_status,
    lastError: row.last_error,
    // While claimed, next_attempt_at is the claim's expiry, not a planned attempt.
    nextAttemptAt: row.status === "pending" ? Number(row.next_attempt_at) : null,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: Number(a.started_at),
      durationMs: a.duration_ms,
      httpStatus: a.http_status,
      error: a.error,
    })),
  };
  // Opt-in: payloads can be large (entity snapshots), and most list reads only need the status.
  if (withPayload) view.payload = JSON.parse(row.payload);
  return view;
}
