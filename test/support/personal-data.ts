import { sql } from "kysely";
import type { TestServer } from "./server.js";

/**
 * Every (table, column, value) of one workspace's rows whose text holds one of `needles`, found by
 * introspecting the schema: every table and every column, so a table added later by
 * another area is scanned too without this helper knowing it.
 */
export async function findAnywhere(
  server: TestServer,
  needles: readonly string[],
  workspaceId: string,
): Promise<string[]> {
  const db = server.services.database.db;
  const tables = await db.introspection.getTables({ withInternalKyselyTables: false });
  const found: string[] = [];
  for (const table of tables) {
    // The workspace's rows where the table is per workspace; every row elsewhere.
    const scoped = table.columns.some((c) => c.name === "workspace_id");
    const where = scoped ? sql`where workspace_id = ${workspaceId}` : sql``;
    for (const column of table.columns) {
      // Every column, cast to text: ids may sit in columns of any textual type.
      const { rows } = await sql<{ value: string | null }>`
        select cast(${sql.ref(column.name)} as text) as value from ${sql.table(table.name)} ${where}`.execute(
        db,
      );
      for (const row of rows) {
        const value = row.value ?? "";
        for (const needle of needles) {
          if (value.includes(needle)) found.push(`${table.name}.${column.name}: ${value.slice(0, 200)}`);
        }
      }
    }
  }
  return found;
}
