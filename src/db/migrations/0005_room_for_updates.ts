import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * PostgreSQL: leave a fifth of each new page free in the tables whose stored record is
 * rewritten in place (activities update, notifications update), so the new row version
 * fits on the same page as a heap-only tuple and none of the table's indexes gets a new
 * entry (none of them covers the record). With full pages every activities update
 * inserted into all four of its indexes. SQLite updates in place and has no such setting.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of ["activities", "notifications"]) {
    await sql`alter table ${sql.table(table)} set (fillfactor = 80)`.execute(db);
  }
}
