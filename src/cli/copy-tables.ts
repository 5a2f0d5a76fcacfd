import { createHash } from "node:crypto";
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";

/** Tables every collabd database has that are the migrator's own, not data: each side migrates itself. */
const MIGRATOR_TABLES = new Set(["kysely_migration", "kysely_migration_lock"]);

/** At most this many rows per INSERT (and below PostgreSQL's 65 535 parameters), and about this many bytes. */
const BATCH_ROWS = 1_000;
const BATCH_BYTES = 4 * 1024 * 1024;
const MAX_PARAMETERS = 65_535;
/** Rows fetched per round trip when the target is read back for its checksum. */
const FETCH_ROWS = 2_000;

export interface TableShape {
  readonly name: string;
  readonly columns: readonly string[];
}

/** One table's outcome: rows on each side and their checksums (equal, or the copy failed). */
export interface TableCopied {
  readonly table: string;
  readonly rows: number;
  readonly checksum: string;
}

export type Progress = (table: string, copied: number, total: number) => void;

/** Table and column names come from the schema; checked anyway before they are spliced into SQL. */
function quoted(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Unexpected table or column name: ${name}.`);
  return `"${name}"`;
}

/** Every data table of the SQLite file with its columns, in name order: read from its schema, none listed by hand. */
export function sqliteTables(source: BetterSqlite3.Database): TableShape[] {
  const names = (
    source
      .prepare(
        "select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\'",
      )
      .pluck()
      .all() as string[]
  )
    .filter((name) => !MIGRATOR_TABLES.has(name))
    .sort();
  return names.map((name) => ({
    name,
    columns: (source.prepare(`pragma table_info(${quoted(name)})`).all() as { name: string }[]).map(
      (c) => c.name,
    ),
  }));
}

/** Every data table of the PostgreSQL schema the connection works in, with its columns, in name order. */
export async function postgresTables(client: pg.ClientBase): Promise<TableShape[]> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    `select c.table_name, c.column_name from information_schema.columns c
     join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
     where c.table_schema = current_schema() and t.table_type = 'BASE TABLE'
     order by c.table_name, c.ordinal_position`,
  );
  const tables = new Map<string, string[]>();
  for (const row of rows) {
    if (MIGRATOR_TABLES.has(row.table_name)) continue;
    const columns = tables.get(row.table_name) ?? [];
    columns.push(row.column_name);
    tables.set(row.table_name, columns);
  }
  return [...tables].map(([name, columns]) => ({ name, columns })).sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Names what differs between the two schemas (tables or columns), or null when they match. */
export function schemaDifference(
  source: readonly TableShape[],
  target: readonly TableShape[],
): string | null {
  const targetByName = new Map(target.map((t) => [t.name, t]));
  const sourceNames = new Set(source.map((t) => t.name));
  const missing = source.filter((t) => !targetByName.has(t.name)).map((t) => t.name);
  const extra = target.filter((t) => !sourceNames.has(t.name)).map((t) => t.name);
  if (missing.length > 0) return `the target has no table ${missing.join(", ")}`;
  if (extra.length > 0) return `the source has no table ${extra.join(", ")}`;
  for (const table of source) {
    const other = new Set(targetByName.get(table.name)!.columns);
    const absent = table.columns.filter((c) => !other.has(c));
    if (absent.length > 0 || other.size !== table.columns.length) {
      return `table ${table.name} has columns ${table.columns.join(", ")} in the source and ${[...other].join(", ")} in the target`;
    }
  }
  return null;
}

/**
 * A checksum of a table's rows that does not depend on their order (the dialects sort text
 * differently): the sum, modulo 2^64, of the first 8 bytes of each row's SHA-256.
 */
class RowChecksum {
  private sum = 0n;
  rows = 0;

  add(values: readonly unknown[]): void {
    const text = JSON.stringify(values.map((v) => (Buffer.isBuffer(v) ? `\\x${v.toString("hex")}` : v)));
    this.sum =
      (this.sum + createHash("sha256").update(text).digest().readBigUInt64BE(0)) & 0xffffffffffffffffn;
    this.rows += 1;
  }

  hex(): string {
    return this.sum.toString(16).padStart(16, "0");
  }
}

/** Inserts every row of `table` from the snapshot in bounded batches; answers the source's count and checksum. */
export async function copyTable(
  source: BetterSqlite3.Database,
  target: pg.ClientBase,
  table: TableShape,
  onProgress: Progress,
): Promise<TableCopied> {
  const columns = table.columns.map(quoted).join(", ");
  const total =
    (source
      .prepare(`select count(*) from ${quoted(table.name)}`)
      .pluck()
      .get() as number) ?? 0;
  const rowsPerBatch = Math.min(BATCH_ROWS, Math.floor(MAX_PARAMETERS / table.columns.length));
  const checksum = new RowChecksum();
  let batch: unknown[][] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await target.query(insertText(table, batch.length), batch.flat());
    batch = [];
    bytes = 0;
    onProgress(table.name, checksum.rows, total);
  };
  // The snapshot is this command's own file: nothing writes it while the iterator holds it.
  for (const row of source
    .prepare(`select ${columns} from ${quoted(table.name)}`)
    .raw()
    .iterate()) {
    const values = row as unknown[];
    checksum.add(values);
    batch.push(values);
    for (const value of values) bytes += typeof value === "string" ? value.length : 8;
    if (batch.length >= rowsPerBatch || bytes >= BATCH_BYTES) await flush();
  }
  await flush();
  return { table: table.name, rows: checksum.rows, checksum: checksum.hex() };
}

function insertText(table: TableShape, rows: number): string {
  const width = table.columns.length;
  const tuples = Array.from(
    { length: rows },
    (_, r) => `(${table.columns.map((_, c) => `$${r * width + c + 1}`).join(", ")})`,
  );
  return `insert into ${quoted(table.name)} (${table.columns.map(quoted).join(", ")}) values ${tuples.join(", ")}`;
}

/** The source's count and checksum of a table, read from the SQLite file without copying. */
export function sqliteChecksum(source: BetterSqlite3.Database, table: TableShape): TableCopied {
  const checksum = new RowChecksum();
  const columns = table.columns.map(quoted).join(", ");
  for (const row of source
    .prepare(`select ${columns} from ${quoted(table.name)}`)
    .raw()
    .iterate()) {
    checksum.add(row as unknown[]);
  }
  return { table: table.name, rows: checksum.rows, checksum: checksum.hex() };
}

/**
 * The target's count and checksum of a table, read back through a cursor in bounded fetches.
 * Called inside a transaction (a cursor lives in one).
 */
export async function postgresChecksum(target: pg.ClientBase, table: TableShape): Promise<TableCopied> {
  const checksum = new RowChecksum();
  const columns = table.columns.map(quoted).join(", ");
  await target.query(`declare copy_check no scroll cursor for select ${columns} from ${quoted(table.name)}`);
  for (;;) {
    const { rows } = await target.query<unknown[]>({
      text: `fetch ${FETCH_ROWS} from copy_check`,
      rowMode: "array",
    });
    for (const row of rows) checksum.add(row);
    if (rows.length < FETCH_ROWS) break;
  }
  await target.query("close copy_check");
  return { table: table.name, rows: checksum.rows, checksum: checksum.hex() };
}

/** Tables of `tables` holding at least one row in the target. */
export async function nonEmptyTables(
  target: pg.ClientBase,
  tables: readonly TableShape[],
): Promise<string[]> {
  const found: string[] = [];
  for (const table of tables) {
    const { rows } = await target.query(`select 1 from ${quoted(table.name)} limit 1`);
    if (rows.length > 0) found.push(table.name);
  }
  return found;
}

/** Statements that set every table aside for the copy: emptied (with --force) and its user triggers off. */
export function prepareTables(tables: readonly TableShape[], empty: boolean): string[] {
  return tables.flatMap((t) => [
    ...(empty ? [`truncate ${quoted(t.name)}`] : []),
    // The usage triggers would count the copied rows a second time: the usage rows are copied as they are.
    `alter table ${quoted(t.name)} disable trigger user`,
  ]);
}

export function restoreTriggers(tables: readonly TableShape[]): string[] {
  return tables.map((t) => `alter table ${quoted(t.name)} enable trigger user`);
}
