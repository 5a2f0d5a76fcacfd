import type { Ctx } from "../../context.js";
import { ApiError, invalidArgument, notFound } from "../../errors.js";
import { pageBounds } from "../../lib/bounds.js";
import { fillPage, nextPageToken } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import type { OutboxEvent } from "../../webhooks/outbox.js";
import { emitDebounced } from "./events.js";
import { type GetCrdtInput, MAX_EDITORS_PER_DOCUMENT, type WriteCrdtInput, YJS_UPDATE } from "./schemas.js";
import * as store from "./store.js";
import {
  CrdtDataError,
  type CrdtType,
  checkDocument,
  encodeState,
  loadDoc,
  mergeUpdate,
  readClientUpdate,
  renderContent,
  serverClientId,
  writeJson,
} from "./yjs.js";

export const CRDT_MESSAGES = {
  added: "CRDT data added successfully.",
  updated: "CRDT data updated successfully.",
  retrieved: "CRDT data retrieved successfully.",
  exists: "CRDT data already exists for this editor ID.",
  missing: "No CRDT data found for this editor ID.",
} as const;

/** The shared-type name when the request names none (the original's default). */
export const DEFAULT_CONTENT_KEY = "content";

/** A new state, checked: its base64 text, its rendered JSON, and the version it was computed from. */
interface Computed {
  readonly state: string;
  readonly rendered: string;
  readonly from: number | null;
  readonly changed: boolean;
}

const asInvalid = (error: unknown): never => {
  if (error instanceof CrdtDataError)
    throw invalidArgument(error.message, [{ field: "data.data", message: error.message }]);
  throw error;
};

/**
 * The state a write stores (docs/compatibility.md "CRDT"): the stored state (none for an add)
 * with the request's content applied — JSON content as the Yjs operations that turn the
 * stored content into it, a Yjs update merged as it is — refused whole (INVALID_ARGUMENT)
 * when it does not fit: the state over COLLABD_MAX_RECORD_BYTES, its rendering too large,
 * too deep or not markup.
 */
function compute(
  ctx: Ctx,
  input: WriteCrdtInput,
  stored: Pick<store.StoreRow, "id" | "state" | "version"> | null,
): Computed {
  const type = input.type as CrdtType;
  const key = input.contentKey ?? DEFAULT_CONTENT_KEY;
  const max = ctx.config.maxRecordBytes;
  try {
    const doc = loadDoc(stored ? Buffer.from(stored.state, "base64") : null);
    if (input.encoding === YJS_UPDATE) mergeUpdate(doc, readClientUpdate(input.data, max));
    else writeJson(doc, type, key, input.data, serverClientId(stored?.id ?? ""));
    const rendered = checkDocument(doc, type, key, max);
    const bytes = encodeState(doc);
    if (bytes.length > max)
      throw new CrdtDataError(`The CRDT state would be ${bytes.length} bytes; the limit is ${max}.`);
    const state = Buffer.from(bytes).toString("base64");
    return { state, rendered, from: stored?.version ?? null, changed: state !== stored?.state };
  } catch (error) {
    return asInvalid(error);
  }
}

/** The event a change emits, with the store as get answers it. */
function changeEvent(row: store.StoreRow, rendered: string): OutboxEvent {
  return {
    type: "crdt",
    event: "crdt.update_data",
    organizationId: row.organization_id,
    documentId: row.document_id,
    timestamp: row.last_updated,
    ...(row.last_updated_by === null ? {} : { actionUser: { userId: row.last_updated_by } }),
    storeId: row.id,
    crdtData: {
      id: row.editor_id,
      data: JSON.parse(rendered) as unknown,
      lastUpdatedBy: row.last_updated_by,
      sessionId: row.session_id,
      lastUpdate: new Date(row.last_updated).toISOString(),
    },
  };
}

/** Creates a store (ALREADY_EXISTS when the editorId has one), at most MAX_EDITORS_PER_DOCUMENT per document. */
export async function addCrdt(ctx: Ctx, input: WriteCrdtInput): Promise<void> {
  const id = ctx.ids();
  const computed = compute(ctx, input, { id, state: "", version: 0 });
  const key = documentKey(ctx, input);
  await ctx.write(async (trx) => {
    const now = ctx.clock.now();
    const fresh: store.StoreRow = {
      workspace_id: key.workspaceId,
      organization_id: key.organizationId,
      document_id: key.documentId,
      editor_id: input.editorId,
      id,
      type: input.type,
      content_key: input.contentKey ?? DEFAULT_CONTENT_KEY,
      state: computed.state,
      version: 1,
      last_updated_by: input.userId ?? null,
      session_id: input.sessionId ?? null,
      created_at: now,
      last_updated: now,
      event_id: null,
      event_due: null,
    };
    // The event first, so the row is written once with it (all of it rolls back if the insert is refused).
    const waiting = await emitDebounced(trx, ctx, fresh, changeEvent(fresh, computed.rendered), now);
    if (!(await store.insertStore(trx, { ...fresh, ...waiting })))
      throw new ApiError("ALREADY_EXISTS", CRDT_MESSAGES.exists);
    if ((await store.countStores(trx, key)) > MAX_EDITORS_PER_DOCUMENT) {
      throw invalidArgument(`The document already holds ${MAX_EDITORS_PER_DOCUMENT} CRDT stores.`, [
        { field: "data.editorId", message: `At most ${MAX_EDITORS_PER_DOCUMENT} editor ids per document.` },
      ]);
    }
    await checkQuotas(trx, ctx);
  });
}

/**
 * Replaces a store's content (NOT_FOUND without one): computed on a snapshot outside the
 * transaction, and again inside, under the row's lock, only when another write came between.
 */
export async function updateCrdt(ctx: Ctx, input: WriteCrdtInput): Promise<void> {
  const key = documentKey(ctx, input);
  const snapshot = await store.findStore(ctx.reader, key, input.editorId);
  if (snapshot) checkSameStore(snapshot, input);
  let computed = snapshot ? compute(ctx, input, snapshot) : null;
  await ctx.write(async (trx) => {
    const row = await store.findStore(trx, key, input.editorId, true);
    if (!row) throw notFound(CRDT_MESSAGES.missing);
    checkSameStore(row, input);
    if (computed === null || computed.from !== row.version) computed = compute(ctx, input, row);
    const now = ctx.clock.now();
    const next: store.StoreRow = {
      ...row,
      state: computed.state,
      version: row.version + 1,
      last_updated_by: input.userId ?? null,
      session_id: input.sessionId ?? null,
      last_updated: now,
    };
    // Nothing changed, nothing to tell: the event of an earlier change keeps waiting as it was.
    const waiting = computed.changed
      ? await emitDebounced(trx, ctx, row, changeEvent(next, computed.rendered), now)
      : { event_id: row.event_id, event_due: row.event_due };
    // The state is written only when it changed; the version moves either way.
    const { state: _same, ...unchanged } = next;
    await store.updateStore(trx, row, { ...(computed.changed ? next : unchanged), ...waiting });
    await checkQuotas(trx, ctx);
  });
}

/** An update keeps the store's type and shared-type name. */
function checkSameStore(row: store.StoreRow, input: WriteCrdtInput): void {
  if (row.type !== input.type) {
    const message = `The CRDT data of this editor ID is of type ${row.type}, not ${input.type}.`;
    throw invalidArgument(message, [{ field: "data.type", message }]);
  }
  const contentKey = input.contentKey ?? DEFAULT_CONTENT_KEY;
  if (row.content_key !== contentKey) {
    const message = `The CRDT data of this editor ID has contentKey "${row.content_key}".`;
    throw invalidArgument(message, [{ field: "data.contentKey", message }]);
  }
}

function documentKey(ctx: Ctx, input: { organizationId: string; documentId: string }): store.DocumentKey {
  return {
    workspaceId: ctx.workspace.id,
    organizationId: input.organizationId,
    documentId: input.documentId,
  };
}

/** One store as get answers it: the rendered content, or with `encoding` the base64 state. */
function storeText(row: store.StoreRow, encoding: string | undefined): string {
  let data: string;
  if (encoding === YJS_UPDATE) data = JSON.stringify(row.state);
  else {
    const doc = loadDoc(Buffer.from(row.state, "base64"));
    data = JSON.stringify(renderContent(doc, row.type as CrdtType, row.content_key));
  }
  return (
    `{"data":${data},"id":${JSON.stringify(row.editor_id)},` +
    `"lastUpdate":${JSON.stringify(new Date(row.last_updated).toISOString())},` +
    `"lastUpdatedBy":${JSON.stringify(row.last_updated_by)},"sessionId":${JSON.stringify(row.session_id)},` +
    `"type":${JSON.stringify(row.type)},"contentKey":${JSON.stringify(row.content_key)}}`
  );
}

/**
 * A document's stores, or the one of `editorId` (an array either way, empty when there is
 * none), by editorId, as one page of at most COLLABD_MAX_PAGE_BYTES.
 */
export async function getCrdt(
  ctx: Ctx,
  input: GetCrdtInput,
): Promise<{ rawData: string; pageToken: string }> {
  const key = documentKey(ctx, input);
  if (input.editorId !== undefined) {
    const row = await store.findStore(ctx.reader, key, input.editorId);
    return { rawData: `[${row ? storeText(row, input.encoding) : ""}]`, pageToken: "" };
  }
  const query = {
    organizationId: input.organizationId,
    documentId: input.documentId,
    encoding: input.encoding,
  };
  const now = ctx.clock.now();
  let after: string | null = null;
  if (input.pageToken) {
    const [editorId] = ctx.pageTokens.open(ctx.workspace.id, query, input.pageToken, now);
    if (typeof editorId !== "string") throw invalidArgument("Invalid page token.");
    after = editorId;
  }
  const bounds = pageBounds(ctx.config, MAX_EDITORS_PER_DOCUMENT);
  const page = await fillPage<store.StoreRow, string>({
    ...bounds,
    after,
    fetch: (from, rows) => store.listStores(ctx.reader, key, from, rows),
    text: (row) => storeText(row, input.encoding),
    key: (row) => row.editor_id,
  });
  return {
    rawData: `[${page.records.join(",")}]`,
    pageToken: nextPageToken(ctx, query, page.next === null ? null : [page.next], now),
  };
}
