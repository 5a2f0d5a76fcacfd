import { setImmediate as yieldToLoop } from "node:timers/promises";
import { type SelectQueryBuilder, sql } from "kysely";
import { fixedBatches } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { FolderRow, Tables } from "../../db/tables.js";
import { type FolderNode, folderScope, type NodeRow, nodeToRow } from "../hierarchy/folders.js";
import { subtreeRange } from "../hierarchy/paths.js";

export {
  type FolderNode,
  findFolder,
  findFolders,
  type NodeRow,
  rowToNode,
} from "../hierarchy/folders.js";

type Db = Readable;

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
  let query = folderScope(db, workspaceId, organizationId);
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
/**
 * One level of an organization's folders, below `under` when given: equality on depth then
 * a path range, one branch on the (depth, path) index (listLevels and measureLevels).
 */
function atLevel<O>(
  query: SelectQueryBuilder<Tables, "folders", O>,
  depth: number,
  under: string | undefined,
) {
  const level = query.where("depth", "=", depth);
  if (under === undefined) return level;
  const [from, to] = subtreeRange(under);
  return level.where("path", ">", from).where("path", "<", to);
}

export async function listLevels(
  db: Db,
  workspaceId: string,
  organizationId: string,
  depths: readonly number[],
  under: string | undefined,
  limit: number,
): Promise<NodeRow[]> {
  const level = (depth: number) => atLevel(folderScope(db, workspaceId, organizationId), depth, under);
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
 * database: a nested answer too large to send is refused without reading it.
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
  const level = (depth: number) =>
    atLevel(
      db
        .selectFrom("folders")
        .select(size.as("size"))
        .where("workspace_id", "=", workspaceId)
        .where("organization_id", "=", organizationId),
      depth,
      under,
    );
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
 * keys. Rows are serialized in chunks of at most 400 rows and about 1 MB of ancestors (1000
 * deep folders with long ids carry ~26 MB), each written in statements of the fixed batch
 * sizes (db/batches.ts), and the event loop gets a turn between chunks.
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
