import type { Kysely } from "kysely";
import type { Workspace } from "../../context.js";
import { rawRows } from "../../db/raw.js";
import type { Tables, WorkspaceRow } from "../../db/tables.js";
import { exclusiveTransaction } from "../../db/transactions.js";
import type { AccessType } from "../hierarchy/paths.js";
import { noteAuthWrite } from "./auth-cache.js";

type Db = Kysely<Tables>;

export function rowToWorkspace(row: WorkspaceRow): Workspace {
  return {
    id: row.id,
    name: row.name,
    activityService: row.activity_service === 1,
    advancedQueries: row.advanced_queries === 1,
    createdAt: row.created_at,
    defaultAccessType: row.default_access_type as AccessType,
  };
}

/**
 * The workspace with each of its token hashes (one row per token; one row with a null
 * hash when it has none). Hand-written: every request on PostgreSQL runs it, and building
 * it with Kysely cost about as much as the round trip.
 */
export function workspaceWithTokenHashes(
  db: Db,
  id: string,
): Promise<(WorkspaceRow & { token_hash: string | null })[]> {
  return rawRows(
    db,
    "select w.id, w.name, w.activity_service, w.advanced_queries, w.created_at, w.default_access_type, t.token_hash " +
      "from workspaces w left join auth_tokens t on t.workspace_id = w.id where w.id = ?",
    [id],
  );
}

export async function findWorkspace(db: Db, id: string): Promise<Workspace | null> {
  const row = await db.selectFrom("workspaces").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? rowToWorkspace(row) : null;
}

/** Every workspace, oldest first (the CLI's `workspace list`; an operator's handful, not a tenant-facing page). */
export async function listWorkspaces(db: Db): Promise<Workspace[]> {
  const rows = await db.selectFrom("workspaces").selectAll().orderBy("created_at").orderBy("id").execute();
  return rows.map(rowToWorkspace);
}

export async function countWorkspaces(db: Db): Promise<number> {
  const row = await db
    .selectFrom("workspaces")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Arbitrary, fixed: the advisory lock key every collabd process takes for its first start. */
const FIRST_START_LOCK = 0x636f6c6c; // "coll"

/**
 * Runs `work` in a transaction no other process's first start runs alongside: on
 * PostgreSQL under a transaction-scoped advisory lock, on SQLite as `BEGIN IMMEDIATE`
 * (the write lock taken before the first read, so the read cannot go stale).
 */
export function underFirstStartLock<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  return exclusiveTransaction(db, FIRST_START_LOCK, work);
}

/** Inserts a workspace; with `ifAbsent` an existing one with that id is kept as it is. */
export async function insertWorkspace(db: Db, workspace: Workspace, ifAbsent = false): Promise<void> {
  const insert = db.insertInto("workspaces").values({
    id: workspace.id,
    name: workspace.name,
    activity_service: workspace.activityService ? 1 : 0,
    advanced_queries: workspace.advancedQueries ? 1 : 0,
    created_at: workspace.createdAt,
    default_access_type: workspace.defaultAccessType,
  });
  await (ifAbsent ? insert.onConflict((oc) => oc.column("id").doNothing()) : insert).execute();
  noteAuthWrite();
}

/** The settings `workspace update` changes; absent ones stay. */
export interface WorkspaceSettings {
  activityService?: boolean;
  advancedQueries?: boolean;
  defaultAccessType?: AccessType;
}

export async function updateWorkspaceSettings(
  db: Db,
  id: string,
  settings: WorkspaceSettings,
): Promise<void> {
  const values: Partial<WorkspaceRow> = {};
  if (settings.defaultAccessType !== undefined) values.default_access_type = settings.defaultAccessType;
  if (settings.activityService !== undefined) values.activity_service = settings.activityService ? 1 : 0;
  if (settings.advancedQueries !== undefined) values.advanced_queries = settings.advancedQueries ? 1 : 0;
  if (Object.keys(values).length === 0) return;
  await db.updateTable("workspaces").set(values).where("id", "=", id).execute();
  noteAuthWrite();
}

/** Stores a token as its hash, with its last four characters (`hint`) to show it masked. */
export async function insertTokenHash(
  db: Db,
  workspaceId: string,
  tokenHash: string,
  now: number,
  hint: string | null = null,
) {
  await db
    .insertInto("auth_tokens")
    .values({ workspace_id: workspaceId, token_hash: tokenHash, created_at: now, hint })
    .onConflict((oc) => oc.columns(["workspace_id", "token_hash"]).doNothing())
    .execute();
  noteAuthWrite();
}

/** Returns whether a token was removed. */
export async function deleteTokenHash(db: Db, workspaceId: string, tokenHash: string): Promise<boolean> {
  const result = await db
    .deleteFrom("auth_tokens")
    .where("workspace_id", "=", workspaceId)
    .where("token_hash", "=", tokenHash)
    .executeTakeFirst();
  noteAuthWrite();
  return Number(result.numDeletedRows) > 0;
}

/** Removes every token of the workspace but `keepHash`; returns how many went. */
export async function deleteTokensExcept(db: Db, workspaceId: string, keepHash: string): Promise<number> {
  const result = await db
    .deleteFrom("auth_tokens")
    .where("workspace_id", "=", workspaceId)
    .where("token_hash", "<>", keepHash)
    .executeTakeFirst();
  noteAuthWrite();
  return Number(result.numDeletedRows);
}

/** The workspace's newest tokens (hash, hint, time), at most `limit`. */
export function listTokens(db: Db, workspaceId: string, limit: number) {
  return db
    .selectFrom("auth_tokens")
    .select(["token_hash", "hint", "created_at"])
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("token_hash")
    .limit(limit)
    .execute();
}

export async function renameWorkspace(db: Db, id: string, name: string): Promise<boolean> {
  const result = await db.updateTable("workspaces").set({ name }).where("id", "=", id).executeTakeFirst();
  noteAuthWrite();
  return Number(result.numUpdatedRows) > 0;
}

/** Workspaces in id order after `afterId`, at most `limit`; only `ids` when given. */
export async function pageWorkspaces(
  db: Db,
  afterId: string | null,
  limit: number,
  ids?: readonly string[],
): Promise<Workspace[]> {
  let query = db.selectFrom("workspaces").selectAll().orderBy("id").limit(limit);
  if (afterId !== null) query = query.where("id", ">", afterId);
  if (ids !== undefined) query = query.where("id", "in", [...ids]);
  return (await query.execute()).map(rowToWorkspace);
}
