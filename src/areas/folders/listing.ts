import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { Ctx } from "../../context.js";
import type { Readable } from "../../db/handles.js";
import { invalidArgument } from "../../errors.js";
import { pageBounds } from "../../lib/bounds.js";
import { fillPage, nextPageToken } from "../../lib/paging.js";
import { type Folder, folderJson, nest, type Owner } from "./records.js";
import type { GetFoldersInput } from "./schemas.js";
import * as store from "./store.js";

/**
 * Bounded folder answers (docs/decisions.md "Answer and record bounds"). The
 * flat listing of an organization is paged like every other list; a nested answer holds at
 * most MAX_NESTED_FOLDERS folders and COLLABD_MAX_PAGE_BYTES characters, else it is refused.
 */

/** Folders a nested (`maxDepth`) answer may hold; more is INVALID_ARGUMENT. */
export const MAX_NESTED_FOLDERS = 1000;

/** Folders read per query of the flat listing: a folder's ancestors may reach ~50 kB. */
const FLAT_CHUNK_ROWS = 100;

/** A flat page: serialized folders, spliced into the response, and the next token. */
export interface FlatPage {
  readonly records: string[];
  readonly pageToken: string;
}

/**
 * One page of every folder of the organization, parents first (path order): up to
 * `pageSize` folders (default and maximum 1000) and COLLABD_MAX_PAGE_BYTES characters,
 * `pageToken` for the rest. A page token holds the last folder's path.
 */
export async function flatPage(
  ctx: Ctx,
  db: Readable,
  input: GetFoldersInput,
  owner: Owner,
): Promise<FlatPage> {
  const bounds = pageBounds(ctx.config, input.pageSize);
  const ws = ctx.workspace.id;
  const query = { organizationId: input.organizationId, pageSize: bounds.limit };
  const after = input.pageToken ? toPathCursor(ctx, query, input.pageToken) : null;
  const page = await fillPage({
    ...bounds,
    chunkRows: FLAT_CHUNK_ROWS,
    after,
    fetch: (from: string | null, rows) => store.listFoldersAfter(db, ws, input.organizationId, from, rows),
    text: (row) => folderJson(row, owner),
    key: (row) => row.path,
  });
  return {
    records: page.records,
    pageToken: nextPageToken(ctx, query, page.next === null ? null : [page.next]),
  };
}

function toPathCursor(ctx: Ctx, query: object, token: string): string {
  const [path] = ctx.pageTokens.open(ctx.workspace.id, query, token, ctx.clock.now());
  if (typeof path !== "string") {
    throw invalidArgument("Invalid page token.", [
      { field: "data.pageToken", message: "Invalid page token." },
    ]);
  }
  return path;
}

/**
 * Refuses a nested answer of more than MAX_NESTED_FOLDERS folders or COLLABD_MAX_PAGE_BYTES
 * characters, INVALID_ARGUMENT naming `field`; `measured` comes from store.measureLevels
 * (read with one row more than allowed), `others` are folders it did not count.
 */
export function checkNestedSize(
  ctx: Ctx,
  measured: { count: number; chars: number },
  others: number,
  owner: Owner,
  field: string,
): void {
  const count = measured.count + others;
  const perFolder = 240 + owner.apiKey.length + owner.organizationId.length;
  if (count <= MAX_NESTED_FOLDERS && measured.chars + count * perFolder <= ctx.config.maxPageBytes) return;
  const message =
    `The folders asked for exceed one answer (${MAX_NESTED_FOLDERS} folders or ` +
    `${ctx.config.maxPageBytes} characters); ask for fewer levels or a deeper folderId, or page ` +
    "through the flat listing (no folderId, no maxDepth).";
  throw invalidArgument(message, [{ field, message: "Answer too large." }]);
}

/** Stored rows as tree nodes in path order (parents first). */
export function toNodes(rows: readonly store.NodeRow[]): store.FolderNode[] {
  return rows.map(store.rowToNode).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Nests `below` under `tops`: linear, and at most MAX_NESTED_FOLDERS folders; a large
 * one yields first so a run of such answers leaves room for other requests between them.
 */
export async function nestBounded(
  tops: readonly store.FolderNode[],
  below: readonly store.FolderNode[],
  owner: Owner,
): Promise<Folder[]> {
  if (tops.length + below.length > 100) await yieldToLoop();
  return nest(tops, below, owner);
}
