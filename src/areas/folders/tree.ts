import type { Kysely } from "kysely";
import type { Tables } from "../../db/tables.js";
import { invalidArgument } from "../../errors.js";
import {
  type AccessType,
  ancestorsPrefix,
  KEY_WIDTH,
  MAX_FOLDER_DEPTH,
  MAX_STORED_DEPTH,
  parentPath,
  ROOT,
  ROOT_ACCESS,
} from "./paths.js";
import type { FolderNode } from "./store.js";
import * as store from "./store.js";
import * as subtree from "./subtree-store.js";

type Db = Kysely<Tables>;

/** Where a folder hangs: the organization's top level or another folder. */
export type ParentRef = Pick<FolderNode, "folderId" | "ancestors" | "path" | "depth" | "accessType">;

export const TOP_LEVEL: ParentRef = {
  folderId: ROOT,
  ancestors: [],
  path: "",
  depth: -1,
  accessType: ROOT_ACCESS,
};

export interface Scope {
  readonly workspaceId: string;
  readonly organizationId: string;
}

/**
 * Moves `folder` with its whole subtree under `parent` (DESIGN §5): refuses a parent
 * inside the subtree (a cycle) and a move that would put any descendant past the
 * depth limit, both as INVALID_ARGUMENT naming `data.parentFolderId`; otherwise
 * rewrites paths and ancestors of the subtree in one statement.
 */
export async function moveFolder(
  db: Db,
  scope: Scope,
  folder: FolderNode,
  parent: ParentRef,
  now: number,
): Promise<void> {
  const field = "data.parentFolderId";
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
  if (deepest - folder.depth + parent.depth + 1 > MAX_STORED_DEPTH) {
    throw invalidArgument(
      `${field} would place folders deeper than the limit of ${MAX_FOLDER_DEPTH} levels.`,
      [{ field, message: `Folder depth limit of ${MAX_FOLDER_DEPTH} levels exceeded.` }],
    );
  }
  await subtree.moveSubtree(db, scope.workspaceId, scope.organizationId, {
    oldPath: folder.path,
    newPath: parent.path + folder.path.slice(-KEY_WIDTH),
    oldAncestorsPrefix: ancestorsPrefix(folder.ancestors),
    newAncestorsPrefix: ancestorsPrefix(childAncestors(parent)),
    now,
  });
}

/** The ancestors of a folder placed under `parent`. */
export function childAncestors(parent: ParentRef): string[] {
  return parent.folderId === ROOT ? [ROOT] : [...parent.ancestors, parent.folderId];
}

/**
 * Gives the folder at `path` a new access setting and recomputes the effective access
 * of every descendant that inherits through it, writing only the rows that change.
 */
export async function applyAccess(
  db: Db,
  scope: Scope,
  path: string,
  setting: { accessType: AccessType; inherit: boolean },
  now: number,
): Promise<void> {
  const { workspaceId, organizationId } = scope;
  const entries = await subtree.listSubtreeAccess(db, workspaceId, organizationId, path);
  const effective = new Map<string, AccessType>([[path, setting.accessType]]);
  const changed = new Map<AccessType, string[]>();
  for (const entry of entries.slice(1)) {
    const inherited = effective.get(parentPath(entry.path)) ?? entry.accessType;
    const value = entry.inheritAccessFromParent ? inherited : entry.accessType;
    effective.set(entry.path, value);
    if (value === entry.accessType) continue;
    const ids = changed.get(value) ?? [];
    ids.push(entry.folderId);
    changed.set(value, ids);
  }
  const top = entries[0];
  if (top) {
    await subtree.setAccess(db, workspaceId, organizationId, [top.folderId], { ...setting, now });
  }
  for (const [accessType, folderIds] of changed) {
    await subtree.setAccess(db, workspaceId, organizationId, folderIds, { accessType, now });
  }
}
