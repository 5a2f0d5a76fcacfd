import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import type { Config } from "../config.js";
import { migrate, openDatabase } from "../db/database.js";
import { loadSqlite } from "../db/sqlite-driver.js";
import { backupDatabase } from "./backup.js";
import {
  copyTable,
  nonEmptyTables,
  type Progress,
  postgresChecksum,
  postgresTables,
  prepareTables,
  restoreTriggers,
  schemaDifference,
  sqliteChecksum,
  sqliteTables,
  type TableCopied,
  type TableShape,
} from "./copy-tables.js";
import type { Flags, Printed } from "./workspace-commands.js";
import { UsageError } from "./workspace-commands.js";

/** A running collabd on the target holds its tables' locks: fail fast and say so instead of waiting behind it. */
const LOCK_TIMEOUT = "5s";

export interface CopyOptions {
  readonly from: string;
  readonly to: string;
  readonly force?: boolean;
  readonly onProgress?: Progress;
}

export interface CopyReport {
  readonly tables: readonly TableCopied[];
  readonly rows: number;
  /** The whole command: snapshot, migrations, copy and checks. */
  readonly seconds: number;
  /** Rows copied and checked per second (the copy's transaction alone). */
  readonly rowsPerSecond: number;
}

/**
 * `collabd copy --from <sqlite file> --to <postgres url>`: the move from SQLite to PostgreSQL
 * (docs/postgres.md "Moving from SQLite"). Copies a consistent snapshot of every table the
 * schema has, in one transaction of bounded batches, and checks each table's count and checksum
 * before committing: a copy is complete or absent.
 */
export async function runCopyCommand(config: Config, flags: Flags): Promise<Printed> {
  const from = typeof flags.from === "string" ? flags.from : "";
  const to = typeof flags.to === "string" ? flags.to : "";
  if (from === "" || to === "")
    throw new UsageError("collabd copy needs --from <sqlite file> and --to <postgres url>.");
  const report = await copyDatabase({
    from,
    to,
    force: flags.force === true,
    onProgress: (table, copied, total) => process.stderr.write(`copy: ${table} ${copied}/${total} rows\n`),
  });
  const keyFile = join(dirname(sourcePath(from)), "secret");
  const keyNote =
    config.secret === null && existsSync(keyFile)
      ? `Set COLLABD_SECRET to the contents of ${keyFile} for every process on PostgreSQL: page tokens and webhook secrets open only with it.`
      : "Keep COLLABD_SECRET as it is for every process on PostgreSQL: page tokens and webhook secrets open only with it.";
  return {
    json: { ...report, keyNote },
    text:
      `Copied ${report.rows} rows of ${report.tables.length} tables in ${report.seconds.toFixed(1)} s ` +
      `(${Math.round(report.rowsPerSecond)} rows/s); every table's count and checksum match.\n${keyNote}`,
  };
}

/** The SQLite file `--from` names: a path or a `sqlite:` URL. */
function sourcePath(from: string): string {
  const path = from.startsWith("sqlite:") ? from.slice("sqlite:".length) : from;
  if (path === "" || path === ":memory:") throw new UsageError("--from must name a SQLite file.");
  return resolve(path);
}

function targetUrl(to: string): string {
  if (!/^postgres(ql)?:\/\//.test(to)) throw new UsageError("--to must be a postgres:// URL.");
  return to;
}

export async function copyDatabase(options: CopyOptions): Promise<CopyReport> {
  const source = sourcePath(options.from);
  const to = targetUrl(options.to);
  const started = performance.now();
  const dir = mkdtempSync(join(tmpdir(), "collabd-copy-"));
  try {
    // The backup's online copy: one consistent state even while a server keeps writing.
    const snapshot = join(dir, "snapshot.db");
    await backupDatabase(source, snapshot);
    await migrated(`sqlite:${snapshot}`);
    await migrated(to);
    const reader = await openSnapshot(snapshot);
    const client = await connect(to);
    try {
      const tables = await matchingTables(reader, client);
      const occupied = await nonEmptyTables(client, tables);
      if (occupied.length > 0 && !options.force) {
        throw new UsageError(
          `The target already holds data (${occupied.slice(0, 5).join(", ")}${occupied.length > 5 ? ", …" : ""}); pass --force to replace it.`,
        );
      }
      const copyStarted = performance.now();
      const copied = await copyAll(reader, client, tables, options);
      const rows = copied.reduce((n, t) => n + t.rows, 0);
      const copySeconds = (performance.now() - copyStarted) / 1000;
      const seconds = (performance.now() - started) / 1000;
      return { tables: copied, rows, seconds, rowsPerSecond: rows / Math.max(copySeconds, 0.001) };
    } finally {
      reader.close();
      await client.end();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Copies and checks every table in one transaction, so a failed copy leaves the target as it was. */
async function copyAll(
  reader: BetterSqlite3.Database,
  client: pg.Client,
  tables: readonly TableShape[],
  options: CopyOptions,
): Promise<TableCopied[]> {
  const onProgress = options.onProgress ?? (() => {});
  await client.query("begin");
  try {
    await client.query(`set local lock_timeout = '${LOCK_TIMEOUT}'`);
    for (const statement of prepareTables(tables, options.force === true)) await client.query(statement);
    const copied: TableCopied[] = [];
    for (const table of tables) copied.push(await copyTable(reader, client, table, onProgress));
    for (const statement of restoreTriggers(tables)) await client.query(statement);
    const mismatches = await compare(copied, client, tables);
    if (mismatches.length > 0)
      throw new Error(`The copy does not match its source: ${mismatches.join("; ")}.`);
    await client.query("commit");
    // Fresh planner statistics: the tables were empty when they were last analyzed.
    await client.query("analyze");
    return copied;
  } catch (error) {
    await client.query("rollback").catch(() => {});
    if ((error as { code?: string }).code === "55P03") {
      throw new UsageError(
        "The target's tables are in use (a collabd running on it?); stop it and copy again.",
      );
    }
    throw error;
  }
}

async function compare(
  expected: readonly TableCopied[],
  client: pg.ClientBase,
  tables: readonly TableShape[],
): Promise<string[]> {
  const mismatches: string[] = [];
  for (const [i, table] of tables.entries()) {
    const want = expected[i]!;
    const got = await postgresChecksum(client, table);
    if (got.rows !== want.rows || got.checksum !== want.checksum) {
      mismatches.push(
        `${table.name} has ${got.rows} rows (checksum ${got.checksum}) in the target and ${want.rows} (checksum ${want.checksum}) in the source`,
      );
    }
  }
  return mismatches;
}

/**
 * Compares every table of a SQLite file with the PostgreSQL database (row counts and checksums);
 * answers what differs. What `copy` checks before it commits, for a copy made earlier.
 */
export async function verifyCopy(from: string, to: string): Promise<string[]> {
  const reader = await openSnapshot(sourcePath(from));
  const client = await connect(targetUrl(to));
  try {
    const tables = await matchingTables(reader, client);
    await client.query("begin read only");
    try {
      return await compare(
        tables.map((t) => sqliteChecksum(reader, t)),
        client,
        tables,
      );
    } finally {
      await client.query("commit");
    }
  } finally {
    reader.close();
    await client.end();
  }
}

/** The tables to copy, read from both schemas, which must agree (the same collabd version migrated both). */
async function matchingTables(reader: BetterSqlite3.Database, client: pg.ClientBase): Promise<TableShape[]> {
  const tables = sqliteTables(reader);
  const difference = schemaDifference(tables, await postgresTables(client));
  if (difference !== null) throw new UsageError(`The source and target schemas differ: ${difference}.`);
  return tables;
}

async function migrated(url: string): Promise<void> {
  const database = await openDatabase(url, { poolSize: 1, checkpoints: false });
  try {
    await migrate(database);
  } finally {
    await database.close();
  }
}

async function openSnapshot(path: string): Promise<BetterSqlite3.Database> {
  const Sqlite = await loadSqlite();
  const handle = new Sqlite(path, { fileMustExist: true });
  handle.pragma("query_only = 1");
  return handle;
}

async function connect(url: string): Promise<pg.Client> {
  const driver = (await import("pg")).default;
  // bigint columns hold epoch milliseconds, read as numbers like the SQLite side (and openDatabase).
  const types = {
    getTypeParser: ((oid: number, format?: "text" | "binary") =>
      oid === driver.types.builtins.INT8
        ? (value: string) => Number(value)
        : driver.types.getTypeParser(oid, format)) as typeof driver.types.getTypeParser,
  };
  const client = new driver.Client({ connectionString: url, types });
  client.on("error", () => {});
  await client.connect();
  return client;
}
