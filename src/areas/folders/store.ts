import type { Kysely } from "kysely";
import { fixedBatches } from "../../db/batches.js";
import type { FolderRow, Tables } from "../../db/tables.js";
import { type AccessType, subtreeRange } from "./paths.js";

type Db = Kysely<Tables>;

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

const COLUMNS = [
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

type NodeRow = Pick<FolderRow, (typeof COLUMNS)[number]>;

/** Storage names to the tree's view (STYLE §7); ancestors are parsed from their JSON text. */
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

const scope = (db: Db, workspaceId: string, organizationId: string) =>
  db
    .selectFrom("folders")
    .select(COLUMNS)
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
  const row = await scope(db, workspaceId, organizationId)
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
  for (let i = 0; i < folderIds.length; i += 500) {
    const chunk = folderIds.slice(i, i + 500);
    const rows = await scope(db, workspaceId, organizationId).where("folder_id", "in", chunk).execute();
    for (const row of rows) found.set(row.folder_id, rowToNode(row));
  }
  return found;
}

/** Every folder of the organization in path order: parents first, siblings by creation. */
export async function listAllFolders(
  db: Db,
  workspaceId: string,
  organizationId: string,
): Promise<FolderNode[]> {
  const rows = await scope(db, workspaceId, organizationId).orderBy("path").execute();
  return rows.map(rowToNode);
}

/**
 * The folders at the given stored depths, within `under`'s subtree when given, in path
 * order. Each depth is its own branch on the (depth, path) index, equality then range,
 * so the cost follows the rows returned, not the size of the organization or of the
 * levels below; one `depth IN (…)` lets PostgreSQL prefer the path index and filter.
 */
export async function listLevels(
  db: Db,
  workspaceId: string,
  organizationId: string,
  depths: readonly number[],
  under?: string,
): Promise<FolderNode[]> {
  const level = (depth: number) => {
    const query = scope(db, workspaceId, organizationId).where("depth", "=", depth);
    if (under === undefined) return query;
    const [from, to] = subtreeRange(under);
    return query.where("path", ">", from).where("path", "<", to);
  };
  const [first, ...rest] = depths;
  if (first === undefined) return [];
  const rows = await rest.reduce((query, depth) => query.unionAll(level(depth)), level(first)).execute();
  return rows.map(rowToNode).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Inserts new folders; the caller holds the organization lock and allocated their path keys. */
export async function insertFolders(db: Db, rows: readonly FolderRow[]): Promise<void> {
  // Few distinct texts (db/batches.ts); 12 parameters a row stay far below either dialect's limit.
  for (const part of fixedBatches(rows)) await db.insertInto("folders").values(part).execute();
}

/** The deepest stored depth in a folder's subtree (the folder's own when it has none). */
export async function subtreeMaxDepth(db: Db, workspaceId: string, organizationId: string, path: string) {
  const [from, to] = subtreeRange(path);
  const row = await db
    .selectFrom("folders")
    .select((eb) => eb.fn.max("depth").as("deepest"))
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("path", ">=", from)
    .where("path", "<", to)
    .executeTakeFirst();
  return Number(row?.deepest ?? 0);
}
