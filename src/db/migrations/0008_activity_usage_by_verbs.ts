import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Activities are accounted by their verbs on PostgreSQL too (src/quotas/activities.ts), as
 * on SQLite since 0007: one usage statement per request, which also answers the usage the
 * quota check needs, instead of statement triggers plus a separate sum. This drops
 * 0007's activities triggers; the other tables keep theirs. The running totals are
 * unchanged: the verbs go on from where the triggers left them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const event of ["insert", "delete", "update"]) {
    const name = `activities_usage_${event}`;
    await sql.raw(`drop trigger if exists ${name} on activities`).execute(db);
    await sql.raw(`drop function if exists ${name}()`).execute(db);
  }
}
