import type { Ctx } from "../../context.js";
import { RUNS_ALONE } from "../../db/group-commit.js";
import type { WriteTx } from "../../db/handles.js";
import { CodedApiError, notFound } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import { deleteGrantsOn } from "../hierarchy/grants.js";
import { lockOrganization, ORGANIZATION_NOT_FOUND } from "../hierarchy/organizations.js";
import { type AccessType, ROOT } from "../hierarchy/paths.js";
import { countDocumentsInFolders, deleteFolderDocumentsOrSweep } from "../hierarchy/sweep.js";
import { type Folder, toFolder } from "./records.js";
import type {
  DeleteFolderInput,
  FolderChangeInput,
  UpdateFolderAccessInput,
  UpdateFolderInput,
} from "./schemas.js";
import { FOLDER_NOT_FOUND, invalidField, requireAdvancedQueries } from "./service.js";
import * as store from "./store.js";
import * as subtree from "./subtree-store.js";
import { applyAccess, moveFolder, type ParentRef, type Scope, topLevel } from "./tree.js";

export const PARENT_NOT_FOUND = "Parent folder not found.";
export const FOLDER_CYCLE = "A folder cannot be moved under itself or one of its descendants.";
export const FOLDER_UPDATED = "Folder Updated.";
export const FOLDER_ACCESS_UPDATED = "Folder access type updated.";

export interface FolderUpdateOutcome {
  readonly success: boolean;
  readonly id: string;
  readonly message: string;
  readonly folder?: Folder;
}

const CHANGES = ["folderName", "parentFolderId", "accessType", "inheritAccessFromParent"] as const;

/**
 * The changes of an update (docs/contract.md "Folders"): the `folders` batch, or collabd 0.1's single-folder
 * form as a one-item batch. Bad input is refused whole, naming the field.
 */
function changesOf(input: UpdateFolderInput): { changes: FolderChangeInput[]; at: (i: number) => string } {
  const { organizationId: _, folders, ...single } = input;
  if (folders !== undefined) {
    const stray = [...CHANGES, "folderId" as const].find((key) => single[key] !== undefined);
    if (stray)
      throw invalidField(`data.${stray}`, `data.${stray} belongs inside data.folders when it is given.`);
    return { changes: folders, at: (i) => `data.folders[${i}]` };
  }
  if (single.folderId === undefined) {
    throw invalidField("data.folders", "Provide data.folders (or, as collabd 0.1 did, data.folderId).");
  }
  return { changes: [{ ...single, folderId: single.folderId }], at: () => "data" };
}

function checkChange(change: FolderChangeInput, at: string, seen: Map<string, string>): void {
  if (CHANGES.every((key) => change[key] === undefined)) {
    throw invalidField(
      at,
      `Provide at least one of ${at}.folderName, ${at}.parentFolderId, ${at}.accessType or ${at}.inheritAccessFromParent.`,
    );
  }
  if (change.accessType !== undefined && change.inheritAccessFromParent === true) {
    throw invalidField(
      `${at}.inheritAccessFromParent`,
      `${at}.inheritAccessFromParent must not be true when ${at}.accessType is given.`,
    );
  }
  const first = seen.get(change.folderId);
  if (first !== undefined) {
    throw invalidField(`${at}.folderId`, `${at}.folderId repeats ${first}.folderId.`);
  }
  seen.set(change.folderId, at);
}

/**
 * Renames, moves and/or changes the access of folders (docs/contract.md "Folders"), in order, in one
 * transaction. A move rewrites `ancestors` of the whole subtree and the access of every
 * folder that inherits through the moved one. A missing folder or parent, or a move under
 * the folder's own subtree, fails that item alone and changes nothing of it.
 */
export async function updateFolders(
  ctx: Ctx,
  input: UpdateFolderInput,
): Promise<Record<string, FolderUpdateOutcome>> {
  requireAdvancedQueries(ctx);
  const { changes, at } = changesOf(input);
  const seen = new Map<string, string>();
  changes.forEach((change, i) => {
    checkChange(change, at(i), seen);
  });
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const scope = { workspaceId: ws, organizationId: org };
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    if ((await lockOrganization(trx, ws, org)) === null) throw notFound(ORGANIZATION_NOT_FOUND);
    const results: Record<string, FolderUpdateOutcome> = {};
    for (const [i, change] of changes.entries()) {
      results[change.folderId] = await updateOne(trx, ctx, scope, change, at(i), now);
    }
    await checkQuotas(trx, ctx);
    return results;
  }, RUNS_ALONE);
}

async function updateOne(
  trx: WriteTx,
  ctx: Ctx,
  scope: Scope,
  change: FolderChangeInput,
  at: string,
  now: number,
): Promise<FolderUpdateOutcome> {
  const { workspaceId: ws, organizationId: org } = scope;
  const id = change.folderId;
  const fail = (message: string) => ({ success: false, id, message });
  const folder = await store.findFolder(trx, ws, org, id);
  if (!folder) return fail(FOLDER_NOT_FOUND);
  const { folderName, parentFolderId, accessType, inheritAccessFromParent } = change;
  const root = topLevel(ctx.workspace.defaultAccessType);
  const parentOf = async (parentId: string): Promise<ParentRef | null> =>
    parentId === ROOT ? root : await store.findFolder(trx, ws, org, parentId);
  const moving = parentFolderId !== undefined && parentFolderId !== folder.parentFolderId;
  const parent = moving ? await parentOf(parentFolderId) : null;
  if (moving && !parent) return fail(PARENT_NOT_FOUND);
  if (parent?.path.startsWith(folder.path)) return fail(FOLDER_CYCLE);
  const inherit =
    accessType === undefined ? (inheritAccessFromParent ?? folder.inheritAccessFromParent) : false;
  const inherited = async () => (parent ?? (await parentOf(folder.parentFolderId)) ?? root).accessType;
  const effective = accessType ?? (inherit ? await inherited() : folder.accessType);
  const access =
    effective !== folder.accessType || inherit !== folder.inheritAccessFromParent
      ? { accessType: effective, inherit }
      : undefined;
  if (parent) {
    await moveFolder(
      trx,
      scope,
      folder,
      parent,
      now,
      access,
      ctx.config.maxFolderDepth,
      `${at}.parentFolderId`,
    );
  } else if (access) await applyAccess(trx, scope, folder.path, access, now);
  await subtree.updateFolderRow(trx, ws, org, id, {
    ...(folderName === undefined ? {} : { folderName }),
    ...(moving ? { parentFolderId } : {}),
    now,
  });
  const updated = await store.findFolder(trx, ws, org, id);
  return {
    success: true,
    id,
    message: FOLDER_UPDATED,
    folder: toFolder(updated!, { apiKey: ws, organizationId: org }),
  };
}

export interface FolderAccessOutcome {
  readonly success: boolean;
  readonly accessType?: AccessType | null;
  readonly inheritFromParent?: true;
  readonly message: string;
}

/**
 * Sets folders' own access, or (`inheritFromParent`) makes them inherit their parent's
 * again, the top level's being the workspace's defaultAccessType (docs/contract.md "Folders"). Inheriting
 * subfolders follow in the same transaction; documents read it at check time.
 */
export async function updateFolderAccess(
  ctx: Ctx,
  input: UpdateFolderAccessInput,
): Promise<Record<string, FolderAccessOutcome>> {
  requireAdvancedQueries(ctx);
  const inherit = input.inheritFromParent === true;
  if (!inherit && input.accessType === undefined) {
    throw invalidField(
      "data.accessType",
      "Missing required field data.accessType (unless data.inheritFromParent is true).",
    );
  }
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const scope = { workspaceId: ws, organizationId: org };
  const ids = [...new Set(input.folderIds)];
  const now = ctx.clock.now();
  return ctx.write(async (trx) => {
    if ((await lockOrganization(trx, ws, org)) === null) throw notFound(ORGANIZATION_NOT_FOUND);
    const results: Record<string, FolderAccessOutcome> = {};
    for (const id of ids) {
      const folder = await store.findFolder(trx, ws, org, id);
      if (!folder) {
        results[id] = { success: false, message: FOLDER_NOT_FOUND };
        continue;
      }
      const parent =
        folder.parentFolderId === ROOT ? null : await store.findFolder(trx, ws, org, folder.parentFolderId);
      const accessType = inherit
        ? (parent?.accessType ?? ctx.workspace.defaultAccessType)
        : (input.accessType as AccessType);
      await applyAccess(trx, scope, folder.path, { accessType, inherit }, now);
      results[id] = inherit
        ? { success: true, accessType: null, inheritFromParent: true, message: FOLDER_ACCESS_UPDATED }
        : { success: true, accessType, message: FOLDER_ACCESS_UPDATED };
    }
    return results;
  }, RUNS_ALONE);
}

/**
 * Deletes a folder and its whole subtree (docs/contract.md "Folders") with the grants on those folders
 * and every document placed in them, as documents delete does (hierarchy/cascade.ts). The
 * folder rows (bounded by the folders quota) go in the request with one bounded batch of the
 * documents; what is left is swept by a delete job under folder tombstones
 * (hierarchy/sweep.ts), so the answer does not wait for it and the documents are gone from
 * reads at once (docs/decisions.md "Deletes are durable jobs").
 * Unknown folder: NOT_FOUND with `code: "not-found"` (docs/compatibility.md "D9").
 */
export async function deleteFolder(
  ctx: Ctx,
  input: DeleteFolderInput,
): Promise<{ deletedCount: number; deletedDocumentCount: number }> {
  requireAdvancedQueries(ctx);
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  const { counts, job } = await ctx.write(async (trx) => {
    if ((await lockOrganization(trx, ws, org)) === null) throw notFound(ORGANIZATION_NOT_FOUND);
    const folder = await store.findFolder(trx, ws, org, input.folderId);
    if (!folder) throw new CodedApiError("NOT_FOUND", FOLDER_NOT_FOUND, "not-found");
    const deleted = await subtree.deleteSubtree(trx, ws, org, folder.path);
    await deleteGrantsOn(trx, ws, org, "folder", deleted);
    const documents = await countDocumentsInFolders(trx, { workspaceId: ws, organizationId: org }, deleted);
    const job = await deleteFolderDocumentsOrSweep(trx, ctx, org, deleted);
    return { counts: { deletedCount: deleted.length, deletedDocumentCount: documents }, job };
  }, RUNS_ALONE);
  // After the commit: a kick before it would find no job yet.
  if (job !== null) ctx.jobs.kick();
  return counts;
}
