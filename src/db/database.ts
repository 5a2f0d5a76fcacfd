import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from "kysely";
import type pg from "pg";
import { GroupCommit, type Work } from "./group-commit.js";
import { migrations } from "./migrations/index.js";
import { withPreparedStatements } from "./prepared-pool.js";
import { withStatementCache } from "./statement-cache.js";
import type { Tables } from "./tables.js";

export type Dialect = "sqlite" | "postgres";

/** One store, two dialects: the Kysely handle plus what differs between them. */
export interface Database {
  readonly db: Kysely<Tables>;
  readonly dialect: Dialect;
  /** The SQLite file's directory (null for memory and PostgreSQL): home of a generated secret. */
  readonly dataDir: string | null;
  /**
   * A number that moves whenever another connection commits (SQLite `data_version`),
   * or null where there is no cheap way to know (PostgreSQL).
   */
  externalVersion(): number | null;
  /** A write transaction, answered once durable; batched into a group commit on SQLite. */
  write<T>(work: Work<T>): Promise<T>;
  /** Answers whether the database responds. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL pool size. */
  readonly poolSize?: number;
}

/** Opens the database named by a `COLLABD_DATABASE_URL` value. */
export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  // Each driver is loaded only when used: start-up time is part of DESIGN §8.
  return url.startsWith("sqlite:")
    ? openSqlite((await import("better-sqlite3")).default, url.slice("sqlite:".length))
    : openPostgres((await import("pg")).default, url, options);
}

function openSqlite(Sqlite: typeof BetterSqlite3, path: string): Database {
  const inMemory = path === ":memory:" || path === "";
  const file = inMemory ? ":memory:" : resolve(path);
  if (!inMemory) mkdirSync(dirname(file), { recursive: true });
  const handle = new Sqlite(file);
  // WAL with synchronous=FULL: an acknowledged commit survives power loss (DESIGN §9).
  handle.pragma("journal_mode = WAL");
  handle.pragma("synchronous = FULL");
  handle.pragma("busy_timeout = 5000");
  // Checkpoint every ~40 MB of WAL instead of ~4 MB: fewer database-file fsyncs on the write path.
  handle.pragma("wal_autocheckpoint = 10000");
  // Reads go through a 64 MiB memory map plus a 16 MiB page cache: fast, and inside the RSS budget (DESIGN §8).
  handle.pragma("cache_size = -16384");
  handle.pragma("mmap_size = 67108864");
  const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: withStatementCache(handle) }) });
  const groupCommit = new GroupCommit(db);
  return {
    db,
    dialect: "sqlite",
    dataDir: inMemory ? null : dirname(file),
    write: (work) => groupCommit.run(work),
    externalVersion: () => handle.pragma("data_version", { simple: true }) as number,
    ping: async () => {
      try {
        handle.prepare("select 1").get();
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.destroy(),
  };
}

function openPostgres(driver: typeof pg, url: string, options: OpenOptions): Database {
  // A schema other than public is chosen in the URL: `?options=-c%20search_path%3Dname`.
  const pool = new driver.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    // bigint columns hold epoch milliseconds, which fit a JS number exactly.
    types: {
      getTypeParser: ((oid: number, format?: "text" | "binary") =>
        oid === driver.types.builtins.INT8
          ? (value: string) => Number(value)
          : driver.types.getTypeParser(oid, format)) as typeof driver.types.getTypeParser,
    },
  });
  // An idle client losing its connection must not crash the process; the next query reports it.
  pool.on("error", () => {});
  // Nor a checked-out one between statements of a transaction: pg emits that on the client,
  // where nothing else listens; the transaction's next statement fails instead.
  pool.on("connect", (client) => client.on("error", () => {}));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool: withPreparedStatements(pool) }) });
  return {
    db,
    dialect: "postgres",
    dataDir: null,
    // Concurrent PostgreSQL transactions already share WAL flushes; each caller gets its own.
    write: (work) => db.transaction().execute(work),
    externalVersion: () => null,
    ping: async () => {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    close: () => db.destroy(),
  };
}

/** Brings the schema up to date; safe to run from several processes at once. */
export async function migrate(database: Database): Promise<void> {
  // Name the schema: Kysely's "does the migration table exist" check otherwise looks at every schema.
  const schema =
    database.dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]
          ?.schema
      : undefined;
  const migrator = new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    throw new Error(`Migration ${failed ?? ""} failed: ${String(error)}`);
  }
}
