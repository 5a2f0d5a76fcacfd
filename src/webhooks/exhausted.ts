import type { Kysely } from "kysely";
import type { Tables } from "../db/tables.js";
import { randomId } from "../lib/ids.js";
import { EXHAUSTED_EVENT, endpointDeliveries, eventChannels, liveEndpoints } from "./endpoints.js";
import { insertOutbox } from "./outbox.js";

/**
 * `message.attempt.exhausted` (docs/webhooks.md "Advanced webhooks"): when a delivery to an
 * endpoint fails its last attempt, every endpoint that takes this event type (its own
 * included) is told, in the worker's bookkeeping transaction, so the notice is written
 * exactly when the failure is. Its channels are the failed event's. A failed notice makes
 * no further notice, so failures cannot feed each other.
 */
export async function emitExhausted(
  trx: Kysely<Tables>,
  delivery: {
    readonly workspaceId: string;
    readonly id: string;
    readonly eventId: string;
    readonly event: string;
  },
  endpointId: string,
  last: { readonly startedAt: number; readonly httpStatus: number | null; readonly now: number },
): Promise<void> {
  if (delivery.event === EXHAUSTED_EVENT) return;
  const { workspaceId } = delivery;
  const endpoints = await liveEndpoints(trx, workspaceId);
  if (endpoints.length === 0) return;
  const place = await trx
    .selectFrom("webhook_events")
    .select(["organization_id", "document_id"])
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", delivery.eventId)
    .executeTakeFirst();
  const organizationId = place?.organization_id ?? "";
  const documentId = place?.document_id ?? "";
  const endpoint = await trx
    .selectFrom("webhook_endpoints")
    .select("uid")
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", endpointId)
    .executeTakeFirst();
  const eventId = randomId();
  const payload = {
    event: EXHAUSTED_EVENT,
    actionType: "attempt.exhausted",
    source: "system",
    data: {
      endpointId,
      endpointUid: endpoint?.uid ?? null,
      msgId: delivery.id,
      eventId: delivery.eventId,
      eventType: delivery.event,
      organizationId,
      documentId,
      lastAttempt: { timestamp: last.startedAt, responseStatusCode: last.httpStatus },
    },
    platform: "api",
  };
  const rows = endpointDeliveries(
    workspaceId,
    endpoints,
    {
      eventId,
      event: EXHAUSTED_EVENT,
      channels: organizationId === "" ? [] : eventChannels(organizationId, documentId),
      payload: JSON.stringify(payload),
    },
    { now: last.now, due: last.now },
    randomId,
  );
  if (rows.length === 0) return;
  await insertOutbox(
    trx,
    [
      {
        workspace_id: workspaceId,
        id: eventId,
        event: EXHAUSTED_EVENT,
        organization_id: organizationId,
        document_id: documentId,
        created_at: last.now,
        record_kind: null,
        record_id: null,
      },
    ],
    rows,
  );
}
