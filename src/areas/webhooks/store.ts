import { sql } from "kysely";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { WebhookAttemptRow, WebhookDeliveryRow } from "../../db/tables.js";
import { fillPage } from "../../lib/paging.js";
import { ERASED } from "../../webhooks/history.js";
import type { DeliveryViewType } from "./schemas.js";

type Db = Readable;

export interface DeliveryFilter {
  readonly workspaceId: string;
  readonly status?: string;
  readonly event?: string;
  readonly ids?: readonly string[];
  readonly endpointId?: string;
}

export type DeliveryKey = readonly [createdAt: number, id: string];

/** Every column but the payload: what a log page reads unless the payload was asked for. */
const LOG_COLUMNS = [
  "workspace_id",
  "id",
  "event_id",
  "event",
  "kind",
  "url",
  "status",
  "step",
  "attempts",
  "next_attempt_at",
  "claim",
  "last_http_status",
  "last_error",
  "created_at",
  "updated_at",
  "endpoint_id",
] as const;

export type LoggedDelivery = Omit<WebhookDeliveryRow, "payload"> & { payload?: string };

/**
 * One page of the delivery log, newest first, keyset on (created_at, id). With payloads a
 * page stops at the page budget like every list (lib/paging.ts fillPage), so up to 1000
 * payloads of the largest record size are never read or sent at once.
 */
export async function listDeliveries(
  db: Db,
  filter: DeliveryFilter,
  after: DeliveryKey | null,
  bounds: { readonly limit: number; readonly budget: number; readonly chunkRows: number },
  withPayload: boolean,
): Promise<{ rows: LoggedDelivery[]; next: DeliveryKey | null }> {
  const fetch = (cursor: DeliveryKey | null, rows: number): Promise<LoggedDelivery[]> => {
    let query = db
      .selectFrom("webhook_deliveries")
      .select(withPayload ? [...LOG_COLUMNS, "payload"] : [...LOG_COLUMNS])
      .where("workspace_id", "=", filter.workspaceId);
    if (filter.status !== undefined) query = query.where("status", "=", filter.status);
    if (filter.event !== undefined) query = query.where("event", "=", filter.event);
    if (filter.ids) query = query.where("id", "in", [...filter.ids]);
    if (filter.endpointId !== undefined) query = query.where("endpoint_id", "=", filter.endpointId);
    if (cursor) {
      query = query.where((eb) => eb(eb.refTuple("created_at", "id"), "<", eb.tuple(cursor[0], cursor[1])));
    }
    return query.orderBy("created_at", "desc").orderBy("id", "desc").limit(rows).execute();
  };
  // fillPage keeps the texts it measured, in order: the page is the first rows it kept.
  const seen: LoggedDelivery[] = [];
  const page = await fillPage({
    ...bounds,
    after,
    fetch,
    key: (row) => [Number(row.created_at), row.id] as const,
    text: (row) => {
      seen.push(row);
      return row.payload ?? "";
    },
  });
  return { rows: seen.slice(0, page.records.length), next: page.next };
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
  row: LoggedDelivery,
  attempts: readonly WebhookAttemptRow[],
): DeliveryViewType {
  const view: DeliveryViewType = {
    webhookId: row.id,
    eventId: row.event_id,
    event: row.event,
    kind: row.kind as DeliveryViewType["kind"],
    url: row.url,
    endpointId: row.endpoint_id,
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
  // Opt-in (read only when asked: payloads can be large); none once erased with its record.
  if (row.payload) view.payload = JSON.parse(row.payload);
  return view;
}
