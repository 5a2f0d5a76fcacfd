/**
 * What an event carries to the two URLs (docs/webhooks.md "Payloads"). Payloads are serialized once, when
 * the event is written, without `webhookId`; the worker splices each delivery's id in
 * front, so retries resend exactly the same JSON.
 */

import { COMMENT_ACTIONS, type CommentEventFields, commentPayloads } from "./comment-payloads.js";

type Json = Record<string, unknown>;

/** One event as the outbox receives it; `record` may still be the stored JSON text. */
export type OutboxEvent =
  | {
      readonly type: "activity";
      /** The activity's `actionType`, which is also the trigger key. */
      readonly event: string;
      /** The public activity record (docs/contract.md "Activities": the record plus add-only fields), object or JSON text. */
      readonly record: string | Json;
    }
  | {
      readonly type: "recording";
      readonly event: "recorder.done";
      readonly organizationId: string;
      readonly documentId: string;
      readonly timestamp: number;
      readonly actionUser?: unknown;
      /** The public recording annotation (docs/contract.md "Recordings"), object or JSON text. */
      readonly record: string | Json;
    }
  | ({ readonly type: "comment" } & CommentEventFields)
  | {
      readonly type: "crdt";
      readonly event: "crdt.update_data";
      readonly organizationId: string;
      readonly documentId: string;
      readonly timestamp: number;
      /** `{userId}` of the change's user, when the request named one. */
      readonly actionUser?: unknown;
      /** The store's id (migration 0024): what deleting it erases. */
      readonly storeId: string;
      /** `{id (editorId), data, lastUpdatedBy, sessionId, lastUpdate}` (docs/webhooks.md "Payloads"). */
      readonly crdtData: Json;
    };

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

/**
 * The trigger keys the original names by a word (docs/webhooks.md "Payloads"): `actionType` carries the word,
 * `event` the key. Any other key is its own `actionType`.
 */
export const ACTION_WORDS: Readonly<Record<string, string>> = {
  ...COMMENT_ACTIONS,
  "recorder.done": "done",
  "crdt.update_data": "updateData",
};

export const actionTypeOf = (event: string): string => ACTION_WORDS[event] ?? event;

/** Where an event happened, as the basic payload's `metadata` says it (docs/webhooks.md "Payloads"). */
export interface EventPlace {
  readonly organizationId: string;
  readonly documentId: string;
  readonly documentName?: string;
  readonly folderId?: string;
}

/**
 * The basic payload (docs/webhooks.md "Payloads"), without `webhookId` (spliced in per delivery): the
 * trigger key's word as `actionType`, the key itself as `event`, `metadata` with the
 * client ids under both names, `platform` `api`, then the event's own fields (`activity`,
 * `recording`, `commentAnnotation`, `targetComment` …). Every emitter builds on this one.
 */
export function basicPayload(
  apiKey: string,
  event: string,
  common: {
    readonly notificationSource: string;
    readonly actionUser?: unknown;
    readonly place: EventPlace;
    readonly timestamp: number;
  },
  fields: Json = {},
): Json {
  return {
    event,
    actionType: actionTypeOf(event),
    notificationSource: common.notificationSource,
    ...(common.actionUser === undefined ? {} : { actionUser: common.actionUser }),
    metadata: eventMetadata(apiKey, common.place),
    platform: "api",
    timestamp: common.timestamp,
    ...fields,
  };
}

export function eventMetadata(apiKey: string, place: EventPlace): Json {
  return {
    apiKey,
    organizationId: place.organizationId,
    documentId: place.documentId,
    clientOrganizationId: place.organizationId,
    clientDocumentId: place.documentId,
    ...(place.documentName === undefined ? {} : { documentName: place.documentName }),
    ...(place.folderId === undefined ? {} : { folderId: place.folderId }),
  };
}

/**
 * The advanced payload (docs/webhooks.md "Payloads"), made from a basic one: `{event, actionType, source,
 * data, platform}` plus the notification config maps when present; `actionType` is the
 * key's part after the first dot.
 */
export function advancedPayload(basic: Json): Json {
  const {
    event,
    actionType: _word,
    notificationSource,
    platform,
    usersOrganizationNotificationsConfig,
    usersDocumentNotificationsConfig,
    ...data
  } = basic;
  const key = String(event);
  const dot = key.indexOf(".");
  return {
    event,
    actionType: ADVANCED_ACTIONS[key] ?? (dot === -1 ? key : key.slice(dot + 1)),
    source: notificationSource,
    data,
    platform,
    ...(usersOrganizationNotificationsConfig === undefined ? {} : { usersOrganizationNotificationsConfig }),
    ...(usersDocumentNotificationsConfig === undefined ? {} : { usersDocumentNotificationsConfig }),
  };
}

/** Keys whose advanced `actionType` is not the part after the dot: the original's own word, from ACTION_WORDS. */
const ADVANCED_ACTIONS: Readonly<Record<string, string>> = {
  "crdt.update_data": actionTypeOf("crdt.update_data"),
};

/** Comment keys an activity may carry (docs/webhooks.md "Payloads"): the payload adds the thread and comment. */
const COMMENT_KEYS = new Set(Object.keys(ACTION_WORDS).filter((key) => key.startsWith("comment")));

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function buildPayloads(apiKey: string, event: OutboxEvent): Payloads {
  if (event.type === "comment") {
    const { organizationId, documentId } = event;
    const recordId = String(event.commentAnnotation.annotationId ?? "");
    return { organizationId, documentId, recordId, ...commentPayloads(apiKey, event) };
  }
  if (event.type === "crdt") return crdtPayloads(apiKey, event);
  const record = typeof event.record === "string" ? (JSON.parse(event.record) as Json) : event.record;
  if (event.type === "activity") {
    const metadata = (record.metadata ?? {}) as Json;
    const organizationId = String(metadata.organizationId ?? "");
    const documentId = String(metadata.documentId ?? "");
    const place = { organizationId, documentId };
    const actionUser = record.actionUser ?? null;
    const comment: Json = COMMENT_KEYS.has(event.event)
      ? {
          commentAnnotation: isObject(record.entityData)
            ? record.entityData
            : { annotationId: record.targetEntityId ?? null },
          ...(isObject(record.entityTargetData) ? { targetComment: record.entityTargetData } : {}),
        }
      : {};
    const common = {
      notificationSource: String(record.featureType),
      actionUser,
      place,
      timestamp: Number(record.timestamp),
    };
    return {
      organizationId,
      documentId,
      recordId: String(record.id ?? ""),
      raw: JSON.stringify(basicPayload(apiKey, event.event, common, { ...comment, activity: record })),
      processed: JSON.stringify({
        event: event.event,
        actionType: actionTypeOf(event.event),
        notificationSource: common.notificationSource,
        from: actionUser,
        displayMessage: render(
          typeof record.displayMessageTemplate === "string" ? record.displayMessageTemplate : "",
          (record.displayMessageTemplateData ?? {}) as Json,
        ),
        targetEntityId: record.targetEntityId ?? null,
        metadata: eventMetadata(apiKey, place),
        timestamp: record.timestamp,
      }),
    };
  }
  const { organizationId, documentId, timestamp } = event;
  const place = { organizationId, documentId };
  const from = record.from ?? event.actionUser ?? null;
  const common = { notificationSource: "recorder", actionUser: from, place, timestamp };
  return {
    organizationId,
    documentId,
    recordId: String(record.annotationId ?? ""),
    raw: JSON.stringify(
      basicPayload(apiKey, event.event, common, { ...recorderFields(record), recording: record }),
    ),
    processed: JSON.stringify({
      event: event.event,
      actionType: actionTypeOf(event.event),
      notificationSource: "recorder",
      from,
      displayMessage: render(RECORDING_TEMPLATE, record),
      targetEntityId: record.annotationId ?? null,
      metadata: eventMetadata(apiKey, place),
      timestamp,
    }),
  };
}

/** `crdt.update_data`: the store's content as `crdtData` (docs/webhooks.md "Payloads"). */
function crdtPayloads(apiKey: string, event: Extract<OutboxEvent, { type: "crdt" }>): Payloads {
  const { organizationId, documentId, timestamp } = event;
  const place = { organizationId, documentId };
  const actionUser = event.actionUser ?? null;
  const common = { notificationSource: "crdt", actionUser, place, timestamp };
  return {
    organizationId,
    documentId,
    recordId: event.storeId,
    raw: JSON.stringify(basicPayload(apiKey, event.event, common, { crdtData: event.crdtData })),
    processed: JSON.stringify({
      event: event.event,
      actionType: actionTypeOf(event.event),
      notificationSource: "crdt",
      from: actionUser,
      displayMessage: render(CRDT_TEMPLATE, event.crdtData),
      targetEntityId: event.crdtData.id ?? null,
      metadata: eventMetadata(apiKey, place),
      timestamp,
    }),
  };
}

/** CRDT updates carry no template of their own (docs/decisions.md "CRDT"). */
const CRDT_TEMPLATE = "CRDT data of editor {{id}} updated.";

/** The recorder event's own fields (docs/webhooks.md "Payloads"), from the stored recording. */
function recorderFields(record: Json): Json {
  const attachments = Array.isArray(record.attachments) ? (record.attachments as Json[]) : [];
  const assets = attachments.map((a) => ({
    url: a.url,
    ...(a.mimeType === undefined ? {} : { mimeType: a.mimeType }),
    ...(a.name === undefined ? {} : { fileName: a.name }),
    ...(a.size === undefined ? {} : { fileSizeInBytes: a.size }),
    ...(a.type === undefined ? {} : { fileFormat: a.type }),
    version: record.latestVersion,
    ...(a.thumbnailUrl === undefined ? {} : { thumbnailUrl: a.thumbnailUrl }),
    ...(record.transcription === undefined ? {} : { transcription: record.transcription }),
  }));
  return {
    recorderId: record.annotationId,
    from: record.from ?? null,
    assets,
    // collabd keeps one version of a recording: every version is the latest.
    assetsAllVersions: assets,
    ...(record.transcription === undefined ? {} : { transcription: record.transcription }),
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
