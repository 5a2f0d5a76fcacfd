import { inListChunks } from "../../db/batches.js";
import type { Readable } from "../../db/handles.js";
import type { FolderRow } from "../../db/tables.js";
import type { AccessType } from "./paths.js";

type Db = Readable;

/** A folder as the tree code sees it: its place in the tree, its effective access. */
export interface FolderNode {
  readonly folderId: string;
  readonly folderName: string;
  /** `root` for a top-level folder. */
  readonly parentFolderId: string;
  /** Folder ids from `root` down to the direct parent. */
  readonly ancestors: readonly string[];
  /** Effective access: the folder's own, or inherited from the nearest ancestor that sets one. */
  readonly accessType: AccessType;
  readonly inheritAccessFromParent: boolean;
  readonly path: string;
  /** 0 for a top-level folder. */
  readonly depth: number;
  readonly createdAt: number;
  readonly lastUpdated: number;
}

export const FOLDER_COLUMNS = [
  "folder_id",
  "folder_name",
  "parent_folder_id",
  "ancestors",
  "access_type",
  "inherit_access",
  "path",
  "depth",
  "created_at",
  "last_updated",
] as const;

export type NodeRow = Pick<FolderRow, (typeof FOLDER_COLUMNS)[number]>;

/** Storage names to the tree's view (docs/architecture.md "Conventions"); ancestors are parsed from their JSON text. */
export function rowToNode(row: NodeRow): FolderNode {
  return {
    folderId: row.folder_id,
    folderName: row.folder_name,
    parentFolderId: row.parent_folder_id,
    ancestors: JSON.parse(row.ancestors) as string[],
    accessType: row.access_type as AccessType,
    inheritAccessFromParent: row.inherit_access === 1,
    path: row.path,
    depth: Number(row.depth),
    createdAt: Number(row.created_at),
    lastUpdated: Number(row.last_updated),
  };
}

/** The stored row of a folder of this workspace and organization. */
export function nodeToRow(workspaceId: string, organizationId: string, node: FolderNode): FolderRow {
  return {
    workspace_id: workspaceId,
    organization_id: organizationId,
    folder_id: node.folderId,
    parent_folder_id: node.parentFolderId,
    path: node.path,
    depth: node.depth,
    ancestors: JSON.stringify(node.ancestors),
    folder_name: node.folderName,
    access_type: node.accessType,
    inherit_access: node.inheritAccessFromParent ? 1 : 0,
    created_at: node.createdAt,
    last_updated: node.lastUpdated,
  };
}

export const folderScope = (db: Db, workspaceId: string, organizationId: string) =>
  db
    .selectFrom("folders")
    .select(FOLDER_COLUMNS)
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId);

/**
 * One folder with its ancestors and effective access, or null when the organization of
 * this workspace has no such folder. For other areas (documents, access checks) too.
 */
export async function findFolder(
  db: Db,
  workspaceId: string,
  organizationId: string,
  folderId: string,
): Promise<FolderNode | null> {
  const row = await folderScope(db, workspaceId, organizationId)
    .where("folder_id", "=", folderId)
    .executeTakeFirst();
  return row ? rowToNode(row) : null;
}

/** The folders among `folderIds` that exist, keyed by id. */
export async function findFolders(
  db: Db,
  workspaceId: string,
  organizationId: string,
  folderIds: readonly string[],
): Promise<Map<string, FolderNode>> {
  const found = new Map<string, FolderNode>();
  for (const chunk of inListChunks(folderIds)) {
    const rows = await folderScope(db, workspaceId, organizationId).where("folder_id", "in", chunk).execute();
    for (const row of rows) found.set(row.folder_id, rowToNode(row));
  }
  return found;
}
