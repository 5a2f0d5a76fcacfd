import type { Ctx } from "../../context.js";
import { invalidArgument, notFound } from "../../errors.js";
import { pageBounds } from "../../lib/bounds.js";
import { fillPage, nextPageToken, openStringKey } from "../../lib/paging.js";
import { findFolder } from "../hierarchy/folders.js";
import { requireOrganization } from "../hierarchy/organizations.js";
import { ROOT } from "../hierarchy/paths.js";
import { resolvePlacements } from "../hierarchy/placement.js";
import type { GetDocumentsInput } from "./schemas.js";
import { DOCUMENT_MESSAGES } from "./service.js";
import * as store from "./store.js";

export interface DocumentPage {
  /** The page's items, serialized (metadata makes documents open-ended in size). */
  readonly records: string[];
  readonly pageToken: string;
}

/**
 * Lists documents of an organization in id order, keyset-paged (docs/contract.md "Lists and page tokens"), optionally
 * those directly in one folder (`root`: in none). With `documentIds`, those documents in
 * the request's order, each unknown one (or one outside `folderId`) as a not-found item
 * in its place, on one page (docs/contract.md "Documents").
 */
export async function getDocuments(ctx: Ctx, input: GetDocumentsInput): Promise<DocumentPage> {
  const workspaceId = ctx.workspace.id;
  const { organizationId } = input;
  await requireOrganization(ctx.reader, workspaceId, organizationId);
  const folderId = input.folderId === undefined ? undefined : input.folderId === ROOT ? null : input.folderId;
  if (folderId && !(await findFolder(ctx.reader, workspaceId, organizationId, folderId))) {
    throw notFound("Folder not found.");
  }
  const rootAccess = ctx.workspace.defaultAccessType;
  if (input.documentIds) return documentsByIds(ctx, input.documentIds, organizationId, folderId);
  const bounds = pageBounds(ctx.config, input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, pageSize: bounds.limit };
  const after = openStringKey(ctx, query, pageToken);
  const filter = { workspaceId, organizationId, ...(folderId !== undefined ? { folderId } : {}) };
  const page = await fillPage({
    ...bounds,
    after,
    fetch: async (cursor: string | null, rows) => {
      const found = await store.listDocuments(ctx.reader, filter, cursor, rows);
      const placements = await resolvePlacements(ctx.reader, workspaceId, organizationId, found, rootAccess);
      return found.map((row) => ({ row, placement: placements.get(row.id)! }));
    },
    text: ({ row, placement }) => JSON.stringify(store.rowToDocument(row, placement)),
    key: ({ row }) => row.id,
  });
  return {
    records: page.records,
    pageToken: nextPageToken(ctx, query, page.next === null ? null : [page.next]),
  };
}

/**
 * Documents by id, in the request's order on one page (docs/contract.md "Documents"), each unknown id (or
 * one outside `folderId`) as a not-found item in its place. At most 100 ids, so at most 100
 * records are read; an answer past COLLABD_MAX_PAGE_BYTES is INVALID_ARGUMENT naming
 * `data.documentIds` (ask for fewer).
 */
async function documentsByIds(
  ctx: Ctx,
  ids: readonly string[],
  organizationId: string,
  folderId: string | null | undefined,
): Promise<DocumentPage> {
  const ws = ctx.workspace.id;
  const found = await store.findDocumentRows(ctx.reader, ws, organizationId, ids);
  const rows = [...found.values()].filter((row) => folderId === undefined || row.folder_id === folderId);
  const placements = await resolvePlacements(
    ctx.reader,
    ws,
    organizationId,
    rows,
    ctx.workspace.defaultAccessType,
  );
  let size = 0;
  const records = ids.map((id) => {
    const placement = placements.get(id);
    const row = found.get(id);
    const text = JSON.stringify(
      row && placement
        ? store.rowToDocument(row, placement)
        : { id, success: false, message: DOCUMENT_MESSAGES.missing, code: "not-found" },
    );
    size += text.length;
    return text;
  });
  if (size > ctx.config.maxPageBytes) {
    const field = "data.documentIds";
    throw invalidArgument(
      `${field}: the answer would exceed ${ctx.config.maxPageBytes} characters; ask for fewer.`,
      [{ field, message: "Answer too large." }],
    );
  }
  return { records, pageToken: "" };
}
