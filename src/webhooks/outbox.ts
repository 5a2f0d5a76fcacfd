import { EventEmitter } from "node:events";
import type { Kysely } from "kysely";
import type { Ctx } from "../context.js";
import { fixedBatches } from "../db/batches.js";
import type { Tables, WebhookDeliveryRow, WebhookEventRow } from "../db/tables.js";
import { notifyOnCommit } from "../db/transactions.js";
import { endpointDeliveries, eventChannels, liveEndpoints } from "./endpoints.js";
import { advancedPayload, buildPayloads, type OutboxEvent } from "./payloads.js";

export type { OutboxEvent } from "./payloads.js";
export { activityEvent, recordingEvent } from "./payloads.js";

/** The NOTIFY channel that wakes every process's worker once an outbox write commits. */
export const OUTBOX_CHANNEL = "collabd_webhook_outbox";

/**
 * Wakes workers of this process after an emit. On SQLite the worker's claim queues behind
 * the emitting transaction on the single connection, so it runs after the commit; on
 * PostgreSQL the NOTIFY, delivered at commit, is what counts.
 */
export const outboxSignal = new EventEmitter();
outboxSignal.setMaxListeners(0);

/**
 * The transactional outbox (docs/webhooks.md "What fires"; docs/architecture.md "Conventions"): writes the events and one pending
 * delivery per configured URL, and one per advanced webhook endpoint that takes the event,
 * in the caller's transaction, so an acknowledged change never loses its webhook and a
 * rolled-back one never sends it. The URLs get events whose trigger is `true` while the
 * service is on; endpoints get what their `filterTypes` and `channels` let through.
 * Answers the ids of the events written (none when nothing takes them).
 */
export async function emitEvents(
  trx: Kysely<Tables>,
  ctx: Ctx,
  events: readonly OutboxEvent[],
  options: EmitOptions = {},
): Promise<string[]> {
  if (events.length === 0) return [];
  const config = await trx
    .selectFrom("webhook_configs")
    .select(["enabled", "raw_url", "processed_url", "triggers", "payload_format"])
    .where("workspace_id", "=", ctx.workspace.id)
    .executeTakeFirst();
  const basic = config?.enabled === 1 && (config.raw_url !== null || config.processed_url !== null);
  // Advanced webhook endpoints (docs/webhooks.md "Advanced webhooks") take events whatever the triggers say.
  const endpoints = await liveEndpoints(trx, ctx.workspace.id);
  if (!basic && endpoints.length === 0) return [];
  const triggers = basic ? (JSON.parse(config.triggers) as Record<string, unknown>) : {};
  const now = ctx.clock.now();
  const due = now + (options.delayMs ?? 0) + (ctx.config.webhookRetrySchedule[0] ?? 0);
  const eventRows: WebhookEventRow[] = [];
  const deliveryRows: WebhookDeliveryRow[] = [];
  for (const event of events) {
    const toUrls = basic && triggers[event.event] === true;
    const typed = endpoints.filter((e) => e.settings.filterTypes?.includes(event.event) ?? true);
    if (!toUrls && typed.length === 0) continue;
    const payloads = buildPayloads(ctx.workspace.id, event);
    const basicRaw = JSON.parse(payloads.raw) as Record<string, unknown>;
    const eventId = ctx.ids();
    const routed = endpointDeliveries(
      ctx.workspace.id,
      typed,
      {
        eventId,
        event: event.event,
        channels: eventChannels(payloads.organizationId, payloads.documentId),
        payload: JSON.stringify(advancedPayload(basicRaw)),
      },
      { now, due },
      ctx.ids,
    );
    if (!toUrls && routed.length === 0) continue;
    eventRows.push({
      workspace_id: ctx.workspace.id,
      id: eventId,
      event: event.event,
      organization_id: payloads.organizationId,
      document_id: payloads.documentId,
      created_at: now,
      record_kind: event.type,
      record_id: payloads.recordId,
    });
    deliveryRows.push(...routed);
    if (!toUrls) continue;
    // The advanced format (docs/webhooks.md "Payloads") reshapes the raw payload; processed payloads keep theirs.
    const raw =
      config.payload_format === "advanced" ? JSON.stringify(advancedPayload(basicRaw)) : payloads.raw;
    for (const [kind, url, payload] of [
      ["raw", config.raw_url, raw],
      ["processed", config.processed_url, payloads.processed],
    ] as const) {
      if (url === null) continue;
      deliveryRows.push({
        workspace_id: ctx.workspace.id,
        id: `msg_${ctx.ids()}`,
        event_id: eventId,
        event: event.event,
        kind,
        url,
        payload,
        status: "pending",
        step: 0,
        attempts: 0,
        next_attempt_at: due,
        claim: null,
        last_http_status: null,
        last_error: null,
        created_at: now,
        updated_at: now,
        endpoint_id: null,
      });
    }
  }
  if (deliveryRows.length === 0) return [];
  await insertOutbox(trx, eventRows, deliveryRows);
  return eventRows.map((row) => row.id);
}

export interface EmitOptions {
  /** The first attempt waits this much longer (a debounced event: src/areas/crdt/events.ts). */
  readonly delayMs?: number;
}

/** Writes events and their deliveries, then wakes the workers once `trx` commits. */
export async function insertOutbox(
  trx: Kysely<Tables>,
  eventRows: readonly WebhookEventRow[],
  deliveryRows: readonly WebhookDeliveryRow[],
): Promise<void> {
  // Few distinct texts (db/batches.ts), each far below either dialect's parameter limit.
  for (const part of fixedBatches(eventRows)) await trx.insertInto("webhook_events").values(part).execute();
  for (const part of fixedBatches(deliveryRows)) {
    await trx.insertInto("webhook_deliveries").values(part).execute();
  }
  await notifyOutbox(trx);
}

/** Wakes the workers once `trx` commits: NOTIFY on PostgreSQL, plus this process's own. */
export async function notifyOutbox(trx: Kysely<Tables>): Promise<void> {
  await notifyOnCommit(trx, OUTBOX_CHANNEL);
  outboxSignal.emit("emitted");
}
