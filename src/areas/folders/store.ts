import { setImmediate as yieldToLoop } from "node:timers/promises";
import { sql } from "kysely";
import { fixedBatches } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { FolderRow } from "../../db/tables.js";
import { type AccessType, subtreeRange } from "./paths.js";

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

export type NodeRow = Pick<FolderRow, (typeof COLUMNS)[number]>;

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

/**
 * Up to `rows` stored folders of the organization after `afterPath` (from the start when
 * null) in path order: parents first, siblings by creation. One range on the path index.
 * Rows, not nodes: the flat listing splices the stored ancestors text into its answer.
 */
export async function listFoldersAfter(
  db: Db,
  workspaceId: string,
  organizationId: string,
  afterPath: string | null,
  rows: number,
): Promise<NodeRow[]> {
  let query = scope(db, workspaceId, organizationId);
  if (afterPath !== null) query = query.where("path", ">", afterPath);
  return query.orderBy("path").limit(rows).execute();
}

/**
 * The folders at the given stored depths, within `under`'s subtree when given, in path
 * order. Each depth is its own branch on the (depth, path) index, equality then range,
 * so the cost follows the rows returned, not the size of the organization or of the
 * levels below; one `depth IN (…)` lets PostgreSQL prefer the path index and filter.
 * At most `limit` rows (any of them: a caller asks for one more than it accepts), as
 * stored rows in no order: the caller checks their size before parsing them (listing.ts).
 */
export async function listLevels(
  db: Db,
  workspaceId: string,
  organizationId: string,
  depths: readonly number[],
  under: string | undefined,
  limit: number,
): Promise<NodeRow[]> {
  const level = (depth: number) => {
    const query = scope(db, workspaceId, organizationId).where("depth", "=", depth);
    if (under === undefined) return query;
    const [from, to] = subtreeRange(under);
    return query.where("path", ">", from).where("path", "<", to);
  };
  const [first, ...rest] = depths;
  if (first === undefined) return [];
  const rows = await rest
    .reduce((query, depth) => query.unionAll(level(depth)), level(first))
    .limit(limit)
    .execute();
  return rows;
}

/**
 * How many folders (at most `limit`) `listLevels` with the same arguments would return and
 * the characters of their strings (ids, name, the ancestors' JSON text), counted by the
 * database: a nested answer too large to send is refused without reading it (issue #15).
 */
export async function measureLevels(
  db: Db,
  workspaceId: string,
  organizationId: string,
  depths: readonly number[],
  under: string | undefined,
  limit: number,
): Promise<{ count: number; chars: number }> {
  const size = sql<number>`length(ancestors) + length(folder_id) + length(folder_name) + length(parent_folder_id)`;
  const level = (depth: number) => {
    const query = db
      .selectFrom("folders")
      .select(size.as("size"))
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("depth", "=", depth);
    if (under === undefined) return query;
    const [from, to] = subtreeRange(under);
    return query.where("path", ">", from).where("path", "<", to);
  };
  const [first, ...rest] = depths;
  if (first === undefined) return { count: 0, chars: 0 };
  const levels = rest
    .reduce((query, depth) => query.unionAll(level(depth)), level(first))
    .limit(sql.lit(limit));
  const row = await db
    .selectFrom(levels.as("levels"))
    .select([sql<number>`count(*)`.as("count"), sql<number>`coalesce(sum(size), 0)`.as("chars")])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), chars: Number(row.chars) };
}

/**
 * Inserts new folders; the caller holds the organization lock and allocated their path
 * keys. Statements hold at most 400 rows (12 parameters a row stays far below either
 * dialect's limit) and about 1 MB of ancestors, serialized statement by statement: 1000
 * deep folders with long ids carry ~26 MB, and the event loop gets a turn between such
 * statements (issue #15).
 */
export async function insertFolders(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  nodes: readonly FolderNode[],
): Promise<void> {
  let start = 0;
  while (start < nodes.length) {
    const rows: FolderRow[] = [];
    let bytes = 0;
    while (start < nodes.length && rows.length < 400 && (rows.length === 0 || bytes < INSERT_BYTES)) {
      const row = nodeToRow(workspaceId, organizationId, nodes[start++]!);
      bytes += row.ancestors.length;
      rows.push(row);
    }
    // Few distinct texts (db/batches.ts).
    for (const part of fixedBatches(rows)) await db.insertInto("folders").values(part).execute();
    if (start < nodes.length && bytes >= INSERT_BYTES) await yieldToLoop();
  }
}

const INSERT_BYTES = 1024 * 1024;

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
