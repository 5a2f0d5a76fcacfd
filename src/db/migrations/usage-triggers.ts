/**
 * The usage triggers of a counted table (migrations 0011 and 0017): each row is one record,
 * and a `bytes` column also counts its stored bytes. Migrations that ran must keep their SQL,
 * so this text is frozen: a different trigger needs a new helper.
 */
export function usageTriggers(postgres: boolean, table: string, bytes: string | null): string[] {
  return postgres ? postgresTriggers(table, bytes) : sqliteTriggers(table, bytes);
}

/** SQLite row triggers on the workspace's shard 0. */
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

/** Statement triggers over transition tables, one usage write per statement (as migration 0007). */
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
