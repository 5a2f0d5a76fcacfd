import { createHash } from "node:crypto";
import { type Kysely, sql } from "kysely";

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

export interface OwnTable {
  readonly name: string;
  readonly columns: readonly { readonly name: string }[];
}

/** The tables of the database (not Kysely's own); on PostgreSQL only those of the test's own schema. */
export async function ownTables(db: Kysely<any>): Promise<OwnTable[]> {
  const schema = await currentSchema(db);
  if (schema === undefined) return db.introspection.getTables();
  // Only this schema's catalog: Kysely's introspection reads every schema and fails with
  // "schema … does not exist" when a test running alongside drops its own meanwhile.
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    select c.table_name, c.column_name from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = ${schema} and t.table_type = 'BASE TABLE' and c.table_name not in ('kysely_migration', 'kysely_migration_lock')
    order by c.table_name, c.ordinal_position`.execute(db);
  const tables = new Map<string, { name: string }[]>();
  for (const row of rows) {
    const columns = tables.get(row.table_name) ?? [];
    columns.push({ name: row.column_name });
    tables.set(row.table_name, columns);
  }
  return [...tables].map(([name, columns]) => ({ name, columns }));
}

async function currentSchema(db: Kysely<any>): Promise<string | undefined> {
  try {
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
    return rows[0]?.schema;
  } catch {
    return undefined; // SQLite
  }
}
