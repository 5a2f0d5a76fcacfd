import { sql } from "kysely";
import type { Readable, WriteTx } from "../../db/handles.js";
import { type AccessType, KEY_WIDTH, subtreeRange } from "../hierarchy/paths.js";

type Db = Readable;

/** An UPDATE of one organization's folders: every write here stays inside one organization. */
const organizationFolders = (db: WriteTx, workspaceId: string, organizationId: string) =>
  db
    .updateTable("folders")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId);

/** Whole-subtree writes: a move, an access change and a delete each touch one path range. */

export interface SubtreeMove {
  readonly oldPath: string;
  readonly newPath: string;
  readonly oldAncestorsPrefix: string;
  readonly newAncestorsPrefix: string;
  readonly now: number;
  /**
   * A new access setting of the moved folder, passed in the same statement to the
   * inheriting descendants inside `ranges` (old paths, see tree.inheritingRanges).
   */
  readonly access?: {
    accessType: AccessType;
    inherit: boolean;
    ranges: readonly (readonly [string, string])[];
  };
}

/**
 * Moves a folder's whole subtree in one statement: every path, depth and ancestors
 * array is rewritten by splicing the new prefix in place of the old one. Paths are
 * ASCII, so their length is the same in JS and SQL; the ancestors' prefix length is
 * measured by the database in its own characters.
 */
export async function moveSubtree(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  move: SubtreeMove,
): Promise<void> {
  const [from, to] = subtreeRange(move.oldPath);
  const levels = (move.newPath.length - move.oldPath.length) / KEY_WIDTH;
  await organizationFolders(db, workspaceId, organizationId)
    .set({
      path: sql<string>`cast(${move.newPath} as text) || substr(path, ${move.oldPath.length + 1})`,
      depth: sql<number>`depth + ${levels}`,
      ancestors: sql<string>`cast(${move.newAncestorsPrefix} as text) || substr(ancestors, length(cast(${move.oldAncestorsPrefix} as text)) + 1)`,
      last_updated: move.now,
      ...(move.access ? accessColumns(move.oldPath, move.access) : {}),
    })
    .where("path", ">=", from)
    .where("path", "<", to)
    .execute();
}

/** SET expressions over the old paths: the moved folder's own setting, its inheritors' access. */
function accessColumns(top: string, access: NonNullable<SubtreeMove["access"]>) {
  const value = access.accessType;
  const inside =
    access.ranges.length === 0
      ? sql<boolean>`false`
      : sql.join(
          access.ranges.map(([low, high]) => sql`(path > ${low} and path < ${high})`),
          sql` or `,
        );
  return {
    access_type: sql<string>`case when path = ${top} then cast(${value} as text) when inherit_access = 1 and (${inside}) then cast(${value} as text) else access_type end`,
    inherit_access: sql<number>`case when path = ${top} then ${access.inherit ? 1 : 0} else inherit_access end`,
  };
}

/** Sets one folder's own access setting (and thereby its effective access). */
export async function setFolderAccess(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  path: string,
  setting: { accessType: AccessType; inherit: boolean; now: number },
): Promise<void> {
  await organizationFolders(db, workspaceId, organizationId)
    .set({
      access_type: setting.accessType,
      inherit_access: setting.inherit ? 1 : 0,
      last_updated: setting.now,
    })
    .where("path", "=", path)
    .execute();
}

/** Paths of the folder's descendants that set their own access, in path order. */
export async function listOwnAccessPaths(
  db: Db,
  workspaceId: string,
  organizationId: string,
  path: string,
): Promise<string[]> {
  const [from, to] = subtreeRange(path);
  const rows = await db
    .selectFrom("folders")
    .select("path")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("path", ">", from)
    .where("path", "<", to)
    .where("inherit_access", "=", 0)
    .orderBy("path")
    .execute();
  return rows.map((r) => r.path);
}

/** Path ranges OR-ed in one statement: a bounded statement text, few statements. */
const RANGES_PER_STATEMENT = 100;

/**
 * Gives `accessType` to the inheriting folders whose paths lie strictly inside one of
 * the `(low, high)` ranges, writing only rows whose access changes: a few range
 * statements instead of one write per folder id.
 */
export async function setInheritedAccess(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  ranges: readonly (readonly [string, string])[],
  accessType: AccessType,
  now: number,
): Promise<void> {
  for (let i = 0; i < ranges.length; i += RANGES_PER_STATEMENT) {
    const chunk = ranges.slice(i, i + RANGES_PER_STATEMENT);
    await organizationFolders(db, workspaceId, organizationId)
      .set({ access_type: accessType, last_updated: now })
      .where("inherit_access", "=", 1)
      .where("access_type", "<>", accessType)
      .where((eb) => eb.or(chunk.map(([low, high]) => eb.and([eb("path", ">", low), eb("path", "<", high)]))))
      .execute();
  }
}

/** Renames a folder and/or records its new parent. */
export async function updateFolderRow(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  folderId: string,
  change: { folderName?: string; parentFolderId?: string; now: number },
): Promise<void> {
  await organizationFolders(db, workspaceId, organizationId)
    .set({
      ...(change.folderName === undefined ? {} : { folder_name: change.folderName }),
      ...(change.parentFolderId === undefined ? {} : { parent_folder_id: change.parentFolderId }),
      last_updated: change.now,
    })
    .where("folder_id", "=", folderId)
    .execute();
}

/** Deletes a folder and everything below it; returns the deleted folder ids. */
export async function deleteSubtree(
  db: WriteTx,
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
