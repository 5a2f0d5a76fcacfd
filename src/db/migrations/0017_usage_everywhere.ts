import { type Kysely, PostgresAdapter, sql } from "kysely";

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
    for (const statement of postgres ? postgresTriggers(table, bytes) : sqliteTriggers(table, bytes)) {
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

function sqliteTriggers(table: string, bytes: string | null): string[] {
  const set = (row: "new" | "old", sign: string) =>
    `records = records ${sign} 1${bytes ? `, bytes = bytes ${sign} octet_length(${row}.${bytes})` : ""}`;
  const where = (row: "new" | "old") => `where workspace_id = ${row}.workspace_id and shard = 0`;
  const out = [
    `create trigger ${table}_usage_insert after insert on ${table} begin
       update workspace_usage set ${set("new", "+")} ${where("new")};
     end`,
    `create trigger ${table}_usage_delete after delete on ${table} begin
       update workspace_usage set ${set("old", "-")} ${where("old")};
     end`,
  ];
  if (bytes) {
    out.push(
      `create trigger ${table}_usage_update after update of ${bytes} on ${table}
       when octet_length(new.${bytes}) <> octet_length(old.${bytes}) begin
         update workspace_usage set bytes = bytes + octet_length(new.${bytes}) - octet_length(old.${bytes}) ${where("new")};
       end`,
    );
  }
  return out;
}

function postgresTriggers(table: string, bytes: string | null): string[] {
  const shares = (rows: string, sign: string, records: boolean) =>
    `select workspace_id, ${records ? `${sign}1` : "0"}::bigint as records, ` +
    `${bytes ? `${sign}octet_length(${bytes})` : "0"}::bigint as bytes from ${rows}`;
  const apply = (source: string) =>
    `insert into workspace_usage as u (workspace_id, shard, records, bytes)
     select workspace_id, pg_backend_pid() % 16, sum(records), sum(bytes) from (${source}) s
     group by workspace_id having sum(records) <> 0 or sum(bytes) <> 0
     on conflict (workspace_id, shard) do update
     set records = u.records + excluded.records, bytes = u.bytes + excluded.bytes`;
  const events: [string, string, string][] = [
    ["insert", "new table as new_rows", apply(shares("new_rows", "", true))],
    ["delete", "old table as old_rows", apply(shares("old_rows", "-", true))],
  ];
  if (bytes) {
    events.push([
      "update",
      "old table as old_rows new table as new_rows",
      apply(`${shares("new_rows", "", false)} union all ${shares("old_rows", "-", false)}`),
    ]);
  }
  return events.flatMap(([event, referencing, body]) => [
    `create function ${table}_usage_${event}() returns trigger language plpgsql as $$
     begin
       ${body};
       return null;
     end $$`,
    `create trigger ${table}_usage_${event} after ${event} on ${table}
     referencing ${referencing} for each statement execute function ${table}_usage_${event}()`,
  ]);
}
