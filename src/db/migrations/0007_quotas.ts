import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Per-workspace usage (src/quotas): records, stored bytes, folders and pending webhook
 * deliveries, kept exact by triggers on every table that counts, so each write path
 * (deletes, subtree deletes, the worker, retention) accounts without code of its own —
 * but for activities on SQLite (see COUNTED). SQLite has only row triggers and one row
 * per workspace (shard 0). PostgreSQL gets statement triggers over transition tables (one
 * usage write per statement, however many rows it wrote) into one of SHARDS rows per
 * workspace picked by the connection, so concurrent writers of one workspace do not queue
 * on one row lock until their commits; a workspace's usage is the sum of its rows.
 * Existing rows are counted once here. Also the storage probe's table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable("workspace_usage")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("shard", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("records", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("bytes", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("folders", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("pending_deliveries", "bigint", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("workspace_usage_pk", ["workspace_id", "shard"])
    .execute();
  // Not tenant data: the scratch row of the storage probe (src/db/storage-faults.ts).
  await db.schema
    .createTable("storage_probe")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("filler", "text", (c) => c.notNull())
    .execute();
  for (const statement of postgres ? postgresTriggers() : sqliteTriggers()) {
    await sql.raw(statement).execute(db);
  }
  await sql
    .raw(
      `insert into workspace_usage (workspace_id, records, bytes, folders, pending_deliveries) ${usageCounts()}`,
    )
    .execute(db);
}

/** What one row of a table adds to each usage column (SQL over the row's columns). */
interface Counted {
  readonly table: string;
  readonly records?: string;
  readonly bytes?: string;
  readonly folders?: string;
  readonly pending?: string;
  /** Columns whose update can change the row's share; none: updates never do. */
  readonly updatedColumns?: readonly string[];
  /** On SQLite, accounted by its verbs in one statement per request, not by row triggers (src/quotas/activities.ts). */
  readonly sqliteByVerbs?: true;
}

/** Usage rows per workspace on PostgreSQL: connections of a pool mostly land on rows of their own. */
const SHARDS = 16;

const PENDING = "case when status in ('pending', 'delivering') then 1 else 0 end";

/** The tables that count, and what each row counts for (README "Quotas"). */
const COUNTED: readonly Counted[] = [
  // The hottest write path: a row trigger cost ~3 µs a record on SQLite, so its verbs account there.
  {
    table: "activities",
    records: "1",
    bytes: "octet_length(record)",
    updatedColumns: ["record"],
    sqliteByVerbs: true,
  },
  { table: "notifications", records: "1", bytes: "octet_length(record)", updatedColumns: ["record"] },
  { table: "recordings", records: "1", bytes: "octet_length(record)", updatedColumns: ["record"] },
  {
    table: "documents",
    records: "1",
    bytes: "octet_length(coalesce(name, ''))",
    updatedColumns: ["name"],
  },
  {
    table: "organizations",
    records: "1",
    bytes: "octet_length(coalesce(organization_name, ''))",
    updatedColumns: ["organization_name"],
  },
  { table: "access_grants", records: "1" },
  { table: "folders", folders: "1", bytes: "octet_length(folder_name)", updatedColumns: ["folder_name"] },
  { table: "webhook_deliveries", pending: PENDING, updatedColumns: ["status"] },
];

const USAGE_COLUMNS = ["records", "bytes", "folders", "pending"] as const;
const STORED: Record<(typeof USAGE_COLUMNS)[number], string> = {
  records: "records",
  bytes: "bytes",
  folders: "folders",
  pending: "pending_deliveries",
};

/** `records = records + (delta)`, … for the columns a table counts, `delta` built per column. */
function setList(counted: Counted, delta: (expression: string) => string): string {
  return USAGE_COLUMNS.filter((c) => counted[c] !== undefined)
    .map((c) => `${STORED[c]} = ${STORED[c]} + ${delta(counted[c]!)}`)
    .join(", ");
}

/** Qualifies a row expression's column names with `new.` or `old.` (SQLite triggers). */
function on(row: "new" | "old", expression: string): string {
  return expression.replace(
    /\b(record|name|organization_name|folder_name|status)\b/g,
    (column) => `${row}.${column}`,
  );
}

function sqliteTriggers(): string[] {
  const out = [
    `create trigger workspace_usage_open after insert on workspaces begin
       insert into workspace_usage (workspace_id) values (new.id) on conflict do nothing;
     end`,
  ];
  for (const counted of COUNTED.filter((c) => !c.sqliteByVerbs)) {
    const { table } = counted;
    const where = (row: "new" | "old") => `where workspace_id = ${row}.workspace_id and shard = 0`;
    out.push(
      `create trigger ${table}_usage_insert after insert on ${table} begin
         update workspace_usage set ${setList(counted, (e) => `(${on("new", e)})`)} ${where("new")};
       end`,
      `create trigger ${table}_usage_delete after delete on ${table} begin
         update workspace_usage set ${setList(counted, (e) => `-(${on("old", e)})`)} ${where("old")};
       end`,
    );
    if (counted.updatedColumns) {
      // `update of`: a statement that sets none of these columns (a folder move's paths) costs nothing here.
      out.push(
        `create trigger ${table}_usage_update after update of ${counted.updatedColumns.join(", ")} on ${table}
         when ${USAGE_COLUMNS.filter((c) => counted[c] !== undefined)
           .map((c) => `(${on("new", counted[c]!)}) <> (${on("old", counted[c]!)})`)
           .join(" or ")}
         begin
           update workspace_usage set ${setList(counted, (e) => `(${on("new", e)}) - (${on("old", e)})`)} ${where("new")};
         end`,
      );
    }
  }
  return out;
}

function postgresTriggers(): string[] {
  const out = [
    `create function workspace_usage_open() returns trigger language plpgsql as $$
     begin
       insert into workspace_usage (workspace_id) select id from new_rows on conflict do nothing;
       return null;
     end $$`,
    `create trigger workspace_usage_open after insert on workspaces
     referencing new table as new_rows for each statement execute function workspace_usage_open()`,
  ];
  for (const counted of COUNTED) {
    const { table } = counted;
    const columns = USAGE_COLUMNS.filter((c) => counted[c] !== undefined);
    // Signed shares of the changed rows, summed per workspace: one update per workspace touched.
    const shares = (rows: string, sign: string) =>
      `select workspace_id, ${columns.map((c) => `${sign}(${counted[c]!})::bigint as ${c}`).join(", ")} from ${rows}`;
    const stored = columns.map((c) => STORED[c]).join(", ");
    const apply = (source: string) =>
      `insert into workspace_usage as u (workspace_id, shard, ${stored})
       select workspace_id, pg_backend_pid() % ${SHARDS}, ${columns.map((c) => `sum(${c})`).join(", ")}
       from (${source}) s group by workspace_id
       having ${columns.map((c) => `sum(${c}) <> 0`).join(" or ")}
       on conflict (workspace_id, shard) do update
       set ${columns.map((c) => `${STORED[c]} = u.${STORED[c]} + excluded.${STORED[c]}`).join(", ")}`;
    const events = [
      ["insert", "new table as new_rows", apply(shares("new_rows", ""))],
      ["delete", "old table as old_rows", apply(shares("old_rows", "-"))],
    ];
    if (counted.updatedColumns) {
      events.push([
        "update",
        "old table as old_rows new table as new_rows",
        apply(`${shares("new_rows", "")} union all ${shares("old_rows", "-")}`),
      ]);
    }
    for (const [event, referencing, body] of events) {
      const name = `${table}_usage_${event}`;
      out.push(
        `create function ${name}() returns trigger language plpgsql as $$
         begin
           ${body};
           return null;
         end $$`,
        `create trigger ${name} after ${event} on ${table}
         referencing ${referencing} for each statement execute function ${name}()`,
      );
    }
  }
  return out;
}

/**
 * Usage counted from the rows themselves, for every workspace: the backfill, and the
 * quota tests' check of the triggers' running totals.
 */
export function usageCounts(): string {
  const sumOf = (column: (typeof USAGE_COLUMNS)[number]) =>
    COUNTED.filter((c) => c[column] !== undefined)
      .map((c) => `coalesce((select sum(${c[column]!}) from ${c.table} t where t.workspace_id = w.id), 0)`)
      .join(" + ");
  return `select w.id as workspace_id, ${USAGE_COLUMNS.map((c) => `${sumOf(c)} as ${STORED[c]}`).join(", ")}
          from workspaces w`;
}
