import { type Kysely, PostgresAdapter, sql } from "kysely";
import { usageTriggers } from "./usage-triggers.js";

/**
 * Usage for the tables a tenant could grow without it (src/quotas/registry.ts lists every
 * table and how it counts): notification preferences (one record each, their JSON as
 * bytes), durable jobs and their tasks, and tombstones. The same triggers as migrations
 * 0007 and 0011 (SQLite row triggers on shard 0; PostgreSQL statement triggers into the
 * connection's shard); existing rows are counted once here.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [table, bytes] of COUNTED) {
    for (const statement of usageTriggers(postgres, table, bytes)) {
      await sql.raw(statement).execute(db);
    }
    await sql
      .raw(
        `insert into workspace_usage as u (workspace_id, shard, records, bytes)
         select workspace_id, 0, count(*), ${bytes ? `coalesce(sum(octet_length(${bytes})), 0)` : "0"}
         from ${table} where true group by workspace_id
         on conflict (workspace_id, shard) do update
         set records = u.records + excluded.records, bytes = u.bytes + excluded.bytes`,
      )
      .execute(db);
  }
}

/** Each row is one record; a column named here also counts its stored bytes. */
const COUNTED: readonly (readonly [table: string, bytes: string | null])[] = [
  ["notification_configs", "config"],
  ["jobs", null],
  ["job_tasks", null],
  ["tombstones", null],
];
