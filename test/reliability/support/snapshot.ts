import { createHash } from "node:crypto";
import { type Kysely, sql, type TableMetadata } from "kysely";

/** Per table: row count and a digest of every row, so any change to stored data shows. */
export type Snapshot = Record<string, { rows: number; digest: string }>;

/**
 * Reads every table of the database (only the test's own schema on PostgreSQL). With
 * `workspaceId`, only that workspace's rows: those whose `workspace_id` (or, for the
 * workspaces table, `id`) is it.
 */
export async function snapshot(db: Kysely<any>, workspaceId?: string): Promise<Snapshot> {
  const tables = await ownTables(db);
  const out: Snapshot = {};
  for (const table of tables.sort((a, b) => a.name.localeCompare(b.name))) {
    let rows = (await db.selectFrom(table.name).selectAll().execute()) as Record<string, unknown>[];
    if (workspaceId !== undefined) {
      const owner = table.columns.some((c) => c.name === "workspace_id")
        ? "workspace_id"
        : table.name === "workspaces"
          ? "id"
          : null;
      if (owner === null) continue;
      rows = rows.filter((row) => row[owner] === workspaceId);
    }
    const lines = rows.map((row) => JSON.stringify(row)).sort();
    out[table.name] = {
      rows: rows.length,
      digest: createHash("sha256").update(lines.join("\n")).digest("hex"),
    };
  }
  return out;
}

/** The tables of the database; on PostgreSQL only those of the test's own schema. */
export async function ownTables(db: Kysely<any>): Promise<TableMetadata[]> {
  const schema = await currentSchema(db);
  return (await db.introspection.getTables()).filter((t) => schema === undefined || t.schema === schema);
}

async function currentSchema(db: Kysely<any>): Promise<string | undefined> {
  try {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  } catch {
    return undefined; // SQLite
  }
}
