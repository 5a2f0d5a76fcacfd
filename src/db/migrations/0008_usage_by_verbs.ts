import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Activities and notifications are accounted by their verbs (src/quotas/by-verbs.ts): one
 * usage statement per request, which also answers the usage the quota check needs, where
 * their triggers cost a row trigger per record on SQLite (notifications; activities were
 * already verb-accounted there) and a statement trigger per statement plus a separate
 * sum on PostgreSQL. This drops 0007's triggers on those two tables; the other tables
 * keep theirs. The running totals are unchanged: the verbs go on from where the triggers
 * left them. Every process must run this version (the verbs and their triggers must not
 * both count).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const table of postgres ? ["activities", "notifications"] : ["notifications"]) {
    for (const event of ["insert", "delete", "update"]) {
      const name = `${table}_usage_${event}`;
      await sql.raw(`drop trigger if exists ${name}${postgres ? ` on ${table}` : ""}`).execute(db);
      if (postgres) await sql.raw(`drop function if exists ${name}()`).execute(db);
    }
  }
}
