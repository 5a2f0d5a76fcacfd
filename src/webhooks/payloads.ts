/**
 * What an event carries to the two URLs (DESIGN §6). Payloads are serialized once, when
 * the event is written, without `webhookId`; the worker splices each delivery's id in
 * front, so retries resend exactly the same JSON.
 */

import { type CommentEventFields, commentPayloads } from "./comment-payloads.js";

type Json = Record<string, unknown>;

/** One event as the outbox receives it; `record` may still be the stored JSON text. */
export type OutboxEvent =
  | {
      readonly type: "activity";
      /** The activity's `actionType`, which is also the trigger key. */
      readonly event: string;
      /** The public activity record (SPEC §2.1 plus add-only fields), object or JSON text. */
      readonly record: string | Json;
    }
  | {
      readonly type: "recording";
      readonly event: "recorder.done";
      readonly organizationId: string;
      readonly documentId: string;
      readonly timestamp: number;
      readonly actionUser?: unknown;
      /** The public recording annotation (SPEC §2.2), object or JSON text. */
      readonly record: string | Json;
    }
  | ({ readonly type: "comment" } & CommentEventFields);

export interface Payloads {
  readonly organizationId: string;
  readonly documentId: string;
  /** The record the payloads carry (activity id, recording annotationId): what its deletion erases. */
  readonly recordId: string;
  readonly raw: string;
  readonly processed: string;
}

/** The shorthand the activities service uses: one event per stored activity row. */
export const activityEvent = (row: { action_type: string; record: string }): OutboxEvent => ({
  type: "activity",
  event: row.action_type,
  record: row.record,
});

/** The shorthand the recordings service uses: `recorder.done` per stored recording row. */
export const recordingEvent = (row: {
  organization_id: string;
  document_id: string;
  last_updated: number;
  record: string;
}): OutboxEvent => ({
  type: "recording",
  event: "recorder.done",
  organizationId: row.organization_id,
  documentId: row.document_id,
  timestamp: row.last_updated,
  record: row.record,
});

export function buildPayloads(apiKey: string, event: OutboxEvent): Payloads {
  if (event.type === "comment") {
    const { organizationId, documentId } = event;
    const recordId = String(event.commentAnnotation.annotationId ?? "");
    return { organizationId, documentId, recordId, ...commentPayloads(apiKey, event) };
  }
  const record = typeof event.record === "string" ? (JSON.parse(event.record) as Json) : event.record;
  if (event.type === "activity") {
    const metadata = (record.metadata ?? {}) as Json;
    const organizationId = String(metadata.organizationId ?? "");
    const documentId = String(metadata.documentId ?? "");
    const common = { event: event.event, actionType: record.actionType ?? event.event };
    return {
      organizationId,
      documentId,
      recordId: String(record.id ?? ""),
      raw: JSON.stringify({
        ...common,
        notificationSource: record.featureType,
        actionUser: record.actionUser ?? null,
        metadata: { apiKey, organizationId, documentId },
        platform: "api",
        timestamp: record.timestamp,
        activity: record,
      }),
      processed: JSON.stringify({
        ...common,
        from: record.actionUser ?? null,
        displayMessage: render(
          typeof record.displayMessageTemplate === "string" ? record.displayMessageTemplate : "",
          (record.displayMessageTemplateData ?? {}) as Json,
        ),
        targetEntityId: record.targetEntityId ?? null,
        metadata: { apiKey, organizationId, documentId },
        timestamp: record.timestamp,
      }),
    };
  }
  const { organizationId, documentId, timestamp } = event;
  const metadata = { apiKey, organizationId, documentId };
  const actionUser = event.actionUser ?? null;
  const common = { event: event.event, actionType: event.event };
  return {
    organizationId,
    documentId,
    recordId: String(record.annotationId ?? ""),
    raw: JSON.stringify({
      ...common,
      notificationSource: "recorder",
      actionUser,
      metadata,
      platform: "api",
      timestamp,
      recording: record,
    }),
    processed: JSON.stringify({
      ...common,
      from: actionUser,
      displayMessage: render(RECORDING_TEMPLATE, record),
      targetEntityId: record.annotationId ?? null,
      metadata,
      timestamp,
    }),
  };
}

/** Recordings carry no template of their own (docs/decisions.md). */
const RECORDING_TEMPLATE = "Recording {{displayName}} is ready.";

/**
 * Renders `{{name}}` and `{{a.b}}` from the data. Strings, numbers and booleans render as
 * text; anything missing, null or structured renders empty, never as `[object Object]`.
 */
export function render(template: string, data: Json): string {
  return template.replace(/\{\{\s*([^{}]+?)\s*\}\}/g, (_match, path: string) => {
    let value: unknown = data;
    for (const key of path.split(".")) {
      if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return "";
      value = (value as Json)[key];
    }
    return typeof value === "string" || typeof value === "number" || typeof value === "boolean"
      ? String(value)
      : "";
  });
}

/** The payload a delivery sends: its id spliced in front of the stored fields. */
export const withWebhookId = (stored: string, webhookId: string): string =>
  `{"webhookId":${JSON.stringify(webhookId)},${stored.slice(1)}`;
