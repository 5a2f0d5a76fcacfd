import { type Kysely, sql } from "kysely";
import type { Tables } from "../../db/tables.js";
import { type AccessType, KEY_WIDTH, subtreeRange } from "./paths.js";

type Db = Kysely<Tables>;

/** Whole-subtree writes: a move, an access change and a delete each touch one path range. */

export interface SubtreeMove {
  readonly oldPath: string;
  readonly newPath: string;
  readonly oldAncestorsPrefix: string;
  readonly newAncestorsPrefix: string;
  readonly now: number;
}

/**
 * Moves a folder's whole subtree in one statement: every path, depth and ancestors
 * array is rewritten by splicing the new prefix in place of the old one. Paths are
 * ASCII, so their length is the same in JS and SQL; the ancestors' prefix length is
 * measured by the database in its own characters.
 */
export async function moveSubtree(
  db: Db,
  workspaceId: string,
  organizationId: string,
  move: SubtreeMove,
): Promise<void> {
  const [from, to] = subtreeRange(move.oldPath);
  const levels = (move.newPath.length - move.oldPath.length) / KEY_WIDTH;
  await db
    .updateTable("folders")
    .set({
      path: sql<string>`cast(${move.newPath} as text) || substr(path, ${move.oldPath.length + 1})`,
      depth: sql<number>`depth + ${levels}`,
      ancestors: sql<string>`cast(${move.newAncestorsPrefix} as text) || substr(ancestors, length(cast(${move.oldAncestorsPrefix} as text)) + 1)`,
      last_updated: move.now,
    })
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("path", ">=", from)
    .where("path", "<", to)
    .execute();
}

export interface AccessEntry {
  readonly folderId: string;
  readonly path: string;
  readonly accessType: AccessType;
  readonly inheritAccessFromParent: boolean;
}

/** The access settings of a folder and its descendants, parents first. */
export async function listSubtreeAccess(
  db: Db,
  workspaceId: string,
  organizationId: string,
  path: string,
): Promise<AccessEntry[]> {
  const [from, to] = subtreeRange(path);
  const rows = await db
    .selectFrom("folders")
    .select(["folder_id", "path", "access_type", "inherit_access"])
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("path", ">=", from)
    .where("path", "<", to)
    .orderBy("path")
    .execute();
  return rows.map((r) => ({
    folderId: r.folder_id,
    path: r.path,
    accessType: r.access_type as AccessType,
    inheritAccessFromParent: r.inherit_access === 1,
  }));
}

/** Sets the effective access (and optionally the inherit flag) of the given folders. */
export async function setAccess(
  db: Db,
  workspaceId: string,
  organizationId: string,
  folderIds: readonly string[],
  change: { accessType: AccessType; inherit?: boolean; now: number },
): Promise<void> {
  for (let i = 0; i < folderIds.length; i += 500) {
    await db
      .updateTable("folders")
      .set({
        access_type: change.accessType,
        ...(change.inherit === undefined ? {} : { inherit_access: change.inherit ? 1 : 0 }),
        last_updated: change.now,
      })
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("folder_id", "in", folderIds.slice(i, i + 500))
      .execute();
  }
}

/** Renames a folder and/or records its new parent. */
export async function updateFolderRow(
  db: Db,
  workspaceId: string,
  organizationId: string,
  folderId: string,
  change: { folderName?: string; parentFolderId?: string; now: number },
): Promise<void> {
  await db
    .updateTable("folders")
    .set({
      ...(change.folderName === undefined ? {} : { folder_name: change.folderName }),
      ...(change.parentFolderId === undefined ? {} : { parent_folder_id: change.parentFolderId }),
      last_updated: change.now,
    })
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("folder_id", "=", folderId)
    .execute();
}

/** Deletes a folder and everything below it; returns the deleted folder ids. */
export async function deleteSubtree(
  db: Db,
  workspaceId: string,
  organizationId: string,
  path: string,
): Promise<string[]> {
  const [from, to] = subtreeRange(path);
  const rows = await db
    .deleteFrom("folders")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("path", ">=", from)
    .where("path", "<", to)
    .returning("folder_id")
    .execute();
  return rows.map((r) => r.folder_id);
}
