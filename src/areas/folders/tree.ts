import type { Kysely } from "kysely";
import { asWriteTx, type Readable, type WriteTx } from "../../db/handles.js";
import type { Tables } from "../../db/tables.js";
import { transaction } from "../../db/transactions.js";
import { invalidArgument } from "../../errors.js";
import { lockOrganization } from "../hierarchy/organizations.js";
import {
  type AccessType,
  ancestorsPrefix,
  KEY_WIDTH,
  MAX_FOLDER_DEPTH,
  ROOT,
  subtreeRange,
} from "../hierarchy/paths.js";
import { tooDeep } from "./plan.js";
import type { FolderNode } from "./store.js";
import * as store from "./store.js";
import * as subtree from "./subtree-store.js";

type Db = Readable;

/** Where a folder hangs: the organization's top level or another folder. */
export type ParentRef = Pick<FolderNode, "folderId" | "ancestors" | "path" | "depth" | "accessType">;

/** The organization's top level, whose access is the workspace's defaultAccessType (docs/contract.md "Folders"). */
export const topLevel = (accessType: AccessType): ParentRef => ({
  folderId: ROOT,
  ancestors: [],
  path: "",
  depth: -1,
  accessType,
});

export interface Scope {
  readonly workspaceId: string;
  readonly organizationId: string;
}

/**
 * Moves `folder` with its whole subtree under `parent` (docs/contract.md "Folders"): refuses a parent
 * inside the subtree (a cycle) and a move that would put any descendant past the
 * depth limit, both as INVALID_ARGUMENT naming `data.parentFolderId`; otherwise
 * rewrites paths, ancestors and, given `access`, the folder's access and that of its
 * inheritors, all in one statement over the subtree.
 */
export async function moveFolder(
  db: WriteTx,
  scope: Scope,
  folder: FolderNode,
  parent: ParentRef,
  now: number,
  access?: { accessType: AccessType; inherit: boolean },
  maxLevels: number = MAX_FOLDER_DEPTH,
  field = "data.parentFolderId",
): Promise<void> {
  if (parent.path.startsWith(folder.path)) {
    const message =
      parent.folderId === folder.folderId
        ? `${field} must not be the folder itself.`
        : `${field} is inside the folder's own subtree; the move would make a cycle.`;
    throw invalidArgument(message, [
      { field, message: "A folder cannot move under itself or a descendant." },
    ]);
  }
  const deepest = await store.subtreeMaxDepth(db, scope.workspaceId, scope.organizationId, folder.path);
  // Stored depth is 0-based: the deepest folder after the move sits at level (depth + 1).
  if (deepest - folder.depth + parent.depth + 2 > maxLevels) {
    throw invalidArgument(`${field} would place folders deeper than the limit of ${maxLevels} levels.`, [
      { field, message: tooDeep(maxLevels) },
    ]);
  }
  const ranges = access ? await accessRanges(db, scope, folder.path) : [];
  const merged = access !== undefined && ranges.length <= MAX_MERGED_RANGES;
  const newPath = parent.path + folder.path.slice(-KEY_WIDTH);
  await subtree.moveSubtree(db, scope.workspaceId, scope.organizationId, {
    oldPath: folder.path,
    newPath,
    oldAncestorsPrefix: ancestorsPrefix(folder.ancestors),
    newAncestorsPrefix: ancestorsPrefix(childAncestors(parent)),
    now,
    ...(merged ? { access: { ...access!, ranges } } : {}),
  });
  if (access && !merged) await applyAccess(db, scope, newPath, access, now);
}

/** Above this many ranges the access rewrite runs as its own statements after the move. */
const MAX_MERGED_RANGES = 200;

/** The ancestors of a folder placed under `parent`. */
export function childAncestors(parent: ParentRef): string[] {
  return parent.folderId === ROOT ? [ROOT] : [...parent.ancestors, parent.folderId];
}

/**
 * Gives the folder at `path` a new access setting and passes the resulting effective
 * access down to every descendant that inherits through it: the subtree minus the
 * subtrees of descendants with their own setting, written as path ranges.
 */
export async function applyAccess(
  db: WriteTx,
  scope: Scope,
  path: string,
  setting: { accessType: AccessType; inherit: boolean },
  now: number,
): Promise<void> {
  const { workspaceId, organizationId } = scope;
  await subtree.setFolderAccess(db, workspaceId, organizationId, path, { ...setting, now });
  const ranges = await accessRanges(db, scope, path);
  await subtree.setInheritedAccess(db, workspaceId, organizationId, ranges, setting.accessType, now);
}

/** Where the folder at `path` passes its access down: see inheritingRanges. */
async function accessRanges(db: Db, scope: Scope, path: string): Promise<[string, string][]> {
  const owners = await subtree.listOwnAccessPaths(db, scope.workspaceId, scope.organizationId, path);
  return inheritingRanges(path, owners);
}

/**
 * The open ranges of `path`'s strict descendants outside the subtrees at `owners`
 * (sorted). No path ends in `~`, so a subtree's upper bound is a safe exclusive low.
 */
export function inheritingRanges(path: string, owners: readonly string[]): [string, string][] {
  const ranges: [string, string][] = [];
  let low = path;
  for (const owner of owners) {
    if (owner < low) continue; // inside an owner already cut out
    if (owner > low) ranges.push([low, owner]);
    low = subtreeRange(owner)[1];
  }
  ranges.push([low, subtreeRange(path)[1]]);
  return ranges;
}

/** Top-level folders a transaction of `inheritDefaultAccess` passes the access down to, at most. */
const INHERIT_BATCH = 200;

/**
 * Passes a new defaultAccessType down (CLI `workspace update --default-access-type`): every
 * top-level folder that inherits gets it, with the folders inheriting through it, at most
 * INHERIT_BATCH top-level folders per transaction under the organization's tree lock. Folders
 * store their effective access, so without this they would keep the old default while root
 * documents took the new one.
 */
export async function inheritDefaultAccess(
  db: Kysely<Tables>,
  workspaceId: string,
  accessType: AccessType,
  now: number,
): Promise<void> {
  let after = "";
  for (;;) {
    const orgs = await db
      .selectFrom("organizations")
      .select("organization_id")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", ">", after)
      .orderBy("organization_id")
      .limit(100)
      .execute();
    for (const { organization_id: organizationId } of orgs) {
      let afterPath: string | null = null;
      do {
        const from: string | null = afterPath;
        const step: { done: number; lastPath: string | null } = await transaction(db, (raw) =>
          inheritInOrganization(asWriteTx(raw), workspaceId, organizationId, accessType, now, {
            limit: INHERIT_BATCH,
            afterPath: from,
          }),
        );
        afterPath = step.done === INHERIT_BATCH ? step.lastPath : null;
      } while (afterPath !== null);
    }
    if (orgs.length < 100) return;
    after = orgs[orgs.length - 1]!.organization_id;
  }
}

/**
 * One step of `inheritDefaultAccess` in one organization, in the caller's transaction under its
 * tree lock (also the durable job of apikeyconfig update): at most `limit` top-level folders, in
 * path order after `afterPath`, so the next step starts where this one ended instead of reading
 * past the folders done. Answers how many top-level folders took the new access and the path of
 * the last; an organization being deleted is skipped.
 */
export async function inheritInOrganization(
  trx: WriteTx,
  workspaceId: string,
  organizationId: string,
  accessType: AccessType,
  now: number,
  range: { readonly limit: number; readonly afterPath: string | null },
): Promise<{ done: number; lastPath: string | null }> {
  if ((await lockOrganization(trx, workspaceId, organizationId)) === null) return { done: 0, lastPath: null };
  const tops = await trx
    .selectFrom("folders")
    .select("path")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("depth", "=", 0)
    .$if(range.afterPath !== null, (q) => q.where("path", ">", range.afterPath as string))
    .where("inherit_access", "=", 1)
    .where("access_type", "<>", accessType)
    .orderBy("path")
    .limit(range.limit)
    .execute();
  const scope = { workspaceId, organizationId };
  for (const { path } of tops) await applyAccess(trx, scope, path, { accessType, inherit: true }, now);
  return { done: tops.length, lastPath: tops.at(-1)?.path ?? null };
}
