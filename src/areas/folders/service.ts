import type { Ctx } from "../../context.js";
import { readSnapshot, type WriteTx } from "../../db/handles.js";
import { failedPrecondition, invalidArgument, notFound } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import {
  ensureOrganization,
  findOrganization,
  lockOrganization,
  ORGANIZATION_NOT_FOUND,
} from "../hierarchy/organizations.js";
import { MAX_STORED_DEPTH, ROOT } from "../hierarchy/paths.js";
import { checkNestedSize, flatPage, MAX_NESTED_FOLDERS, nestBounded, toNodes } from "./listing.js";
import { type FolderItemOutcome, type NewFolder, planFolderAdds } from "./plan.js";
import type { Folder } from "./records.js";
import type { GetFoldersInput } from "./schemas.js";
import * as store from "./store.js";

export const ADVANCED_QUERIES_OFF = "Advanced queries are not enabled for this workspace.";
export const FOLDER_NOT_FOUND = "Folder not found.";

/** Folder operations (and documents placed in folders) need the workspace's advanced queries (docs/contract.md "Folders"). */
export function requireAdvancedQueries(ctx: Ctx): void {
  if (!ctx.workspace.advancedQueries) throw failedPrecondition(ADVANCED_QUERIES_OFF);
}

export interface FolderListing {
  /** Nested answers: folders as objects. */
  readonly folders?: Folder[];
  /** The flat listing: serialized folders of one page. */
  readonly records?: string[];
  /** `""` unless the flat listing has more pages. */
  readonly pageToken: string;
  /** Whether one folder was asked for, which has its own success message. */
  readonly oneFolder: boolean;
}

/**
 * Reads the tree (docs/contract.md "Folders"): one folder nested `maxDepth` levels (default 1);
 * without folderId, every folder flat (paged, listing.ts), or the top-level folders nested
 * when `maxDepth` is given. A nested answer's reads share one snapshot, so a concurrent
 * move is seen whole or not at all; every answer is bounded (listing.ts).
 */
export async function getFolders(ctx: Ctx, input: GetFoldersInput): Promise<FolderListing> {
  requireAdvancedQueries(ctx);
  const flat = input.folderId === undefined && input.maxDepth === undefined;
  if (!flat) refusePaging(input);
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const owner = { apiKey: ws, organizationId: org };
  const levels = (from: number, count: number) =>
    Array.from({ length: Math.max(0, Math.min(count, MAX_STORED_DEPTH - from + 1)) }, (_, i) => from + i);
  if (flat) {
    // Pages of the flat listing read in several short statements with the loop yielded
    // between them; no transaction, so none holds SQLite's reader connection meanwhile.
    // Like any keyset walk, a folder moved while it runs may be met twice or not at all.
    if (!(await findOrganization(ctx.reader, ws, org))) throw notFound(ORGANIZATION_NOT_FOUND);
    return { ...(await flatPage(ctx, ctx.reader, input, owner)), oneFolder: false };
  }
  const cap = MAX_NESTED_FOLDERS + 1;
  const field =
    input.folderId !== undefined && input.maxDepth === undefined ? "data.folderId" : "data.maxDepth";
  const read = await readSnapshot(ctx.reader, async (trx) => {
    let folder: store.FolderNode | null = null;
    let depths: number[];
    if (input.folderId !== undefined) {
      // A folder implies its organization (organizations are never deleted), so the
      // organization is only looked up to tell which of the two is missing.
      folder = await store.findFolder(trx, ws, org, input.folderId);
      if (!folder) {
        throw notFound((await findOrganization(trx, ws, org)) ? FOLDER_NOT_FOUND : ORGANIZATION_NOT_FOUND);
      }
      depths = levels(folder.depth + 1, input.maxDepth ?? 1);
    } else {
      if (!(await findOrganization(trx, ws, org))) throw notFound(ORGANIZATION_NOT_FOUND);
      depths = levels(0, input.maxDepth! + 1);
    }
    // Sized by the database first: a refused answer is never read into memory.
    const under = folder?.path;
    const measured = await store.measureLevels(trx, ws, org, depths, under, cap);
    checkNestedSize(ctx, measured, folder ? 1 : 0, owner, field);
    return { folder, rows: await store.listLevels(trx, ws, org, depths, under, cap) };
  });
  const nodes = toNodes(read.rows);
  const [tops, below] = read.folder
    ? [[read.folder], nodes]
    : [nodes.filter((node) => node.depth === 0), nodes.filter((node) => node.depth > 0)];
  return { folders: await nestBounded(tops, below, owner), pageToken: "", oneFolder: read.folder !== null };
}

/** Paging is for the flat listing; a nested answer is bounded instead (listing.ts). */
function refusePaging(input: GetFoldersInput): void {
  for (const key of ["pageSize", "pageToken"] as const) {
    if (input[key] === undefined) continue;
    const field = `data.${key}`;
    throw invalidField(field, `${field} applies only to the flat listing (no folderId, no maxDepth).`);
  }
}

/**
 * Adds folders, v1 and v2 (docs/contract.md "Folders"): per-item results keyed by folderId. The
 * organization must exist unless `createOrganization`; bad input fails the whole request
 * before anything is written.
 */
export async function addFolders(
  ctx: Ctx,
  input: { organizationId: string; createOrganization?: boolean; folders: readonly NewFolder[] },
): Promise<Record<string, FolderItemOutcome>> {
  requireAdvancedQueries(ctx);
  checkNewFolders(input.folders);
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    if (input.createOrganization) await ensureOrganization(trx, ws, org, now);
    const lastKey = await lockOrganization(trx, ws, org, input.folders.length);
    if (lastKey === null) throw notFound(ORGANIZATION_NOT_FOUND);
    const firstKey = lastKey - input.folders.length + 1;
    const named = new Set<string>();
    for (const item of input.folders) {
      named.add(item.folderId);
      if (item.parentFolderId !== undefined && item.parentFolderId !== ROOT) named.add(item.parentFolderId);
    }
    const existing = await store.findFolders(trx, ws, org, [...named]);
    const plan = planFolderAdds(
      input.folders,
      existing,
      (index) => firstKey + index,
      now,
      ctx.config.maxFolderDepth,
      ctx.workspace.defaultAccessType,
    );
    await store.insertFolders(trx, ws, org, plan.created);
    await checkQuotas(trx, ctx);
    return plan.results;
  }, input.folders.length);
}

/** Bad input of a folder add, refused whole (docs/contract.md "Answers and errors"): reserved or repeated ids, self-parenting. */
function checkNewFolders(folders: readonly NewFolder[]): void {
  const seen = new Map<string, number>();
  folders.forEach((folder, index) => {
    const at = `data.folders[${index}]`;
    if (folder.folderId === ROOT) {
      throw invalidField(`${at}.folderId`, `${at}.folderId must not be root, which names the top level.`);
    }
    if (folder.parentFolderId === folder.folderId) {
      throw invalidField(`${at}.parentFolderId`, `${at}.parentFolderId must not be the folder itself.`);
    }
    const first = seen.get(folder.folderId);
    if (first !== undefined) {
      throw invalidField(`${at}.folderId`, `${at}.folderId repeats data.folders[${first}].folderId.`);
    }
    seen.set(folder.folderId, index);
  });
}

/** INVALID_ARGUMENT whose one detail names the field, as schema errors do (docs/contract.md "Answers and errors"). */
export function invalidField(field: string, message: string) {
  return invalidArgument(message, [{ field, message }]);
}

/**
 * Creates `folderId` at the top level when it does not exist (documents add with
 * `createFolder`: docs/contract.md "Documents"): named by its id, inheriting the workspace's
 * defaultAccessType. Runs in the caller's transaction; NOT_FOUND without the organization.
 */
export async function ensureTopLevelFolder(
  trx: WriteTx,
  ctx: Ctx,
  organizationId: string,
  folderId: string,
  now: number,
): Promise<void> {
  const ws = ctx.workspace.id;
  if (await store.findFolder(trx, ws, organizationId, folderId)) return;
  const key = await lockOrganization(trx, ws, organizationId, 1);
  if (key === null) throw notFound(ORGANIZATION_NOT_FOUND);
  const plan = planFolderAdds(
    [{ folderId }],
    new Map(),
    () => key,
    now,
    ctx.config.maxFolderDepth,
    ctx.workspace.defaultAccessType,
  );
  await store.insertFolders(trx, ws, organizationId, plan.created);
}
