import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import { Kysely, type LogEvent, Migrator, SqliteDialect, sql } from "kysely";
import type pg from "pg";
import { parsePostgresHosts } from "../lib/pg-hosts.js";
import { TenantAdmission, type TenantLoad } from "./admission.js";
import { withBudget } from "./budget.js";
import { type CacheSize, sharedCacheSizes } from "./byte-lru.js";
import { startCheckpointer } from "./checkpointer.js";
import { GroupCommit, sqliteTransaction, type Work, type WriteOptions } from "./group-commit.js";
import { asReadDb, asWriteTx, type ReadDb } from "./handles.js";
import { SchemaScopedPostgresDialect } from "./introspection.js";
import { migrations } from "./migrations/index.js";
import { type DatabaseMonitor, monitorSlot } from "./monitor.js";
import { PreparedStatements } from "./prepared-pool.js";
import { type DirectReads, LiteralLimitPlugin, registerDirectReads, toNumbered } from "./raw.js";
import { withReplicas } from "./replicas.js";
import { loadSqlite } from "./sqlite-driver.js";
import { statementCache, withStatementCache } from "./statement-cache.js";
import { probeWork, StorageHealth } from "./storage-faults.js";
import type { Tables } from "./tables.js";
import { targeted } from "./targets.js";
import { type Fdatasync, WalSync } from "./wal-sync.js";

export type Dialect = "sqlite" | "postgres";

const literalLimits = new LiteralLimitPlugin();

/** One store, two dialects: the Kysely handle plus what differs between them. */
export interface Database {
  /**
   * The raw handle, for the process's own work outside requests (migrations, the webhook
   * worker's bookkeeping, the CLI's bootstrap). Never handed to a service: `Ctx` carries
   * `reader` and `write` only (handles.ts).
   */
  readonly db: Kysely<Tables>;
  /**
   * For pure reads on the request path. On a SQLite file it is a second, query-only
   * connection: WAL lets it read the last commit while a group commit is still open on
   * `db`, so a read never queues behind a write. Elsewhere it is `db`.
   */
  readonly reader: ReadDb;
  /**
   * The read handle for a request of `workspace`: `reader`, or with read replicas
   * (COLLABD_DATABASE_READ_URL) a replica that has replayed the workspace's last write (replicas.ts).
   */
  readerFor(workspace: string): ReadDb;
  readonly dialect: Dialect;
  /** The SQLite file's directory (null for memory and PostgreSQL): home of a generated secret. */
  readonly dataDir: string | null;
  /**
   * A number that moves whenever another process commits (SQLite `data_version`), or
   * null where there is no cheap way to know (PostgreSQL). Read at most once per
   * event-loop turn: each read is a WAL lock round trip, and a commit that finished
   * before a request was sent is still seen by it, since requests are read after the
   * turn's poll returns.
   */
  externalVersion(): number | null;
  /**
   * A write transaction, answered once durable; batched into a group commit on SQLite.
   * Its statements are charged to `options.budget` (budget.ts), which refuses past its limits.
   */
  write<T>(work: Work<T>, options?: WriteOptions): Promise<T>;
  /**
   * Resolves once every commit made so far is on disk. On SQLite a group commit is
   * visible to other statements a moment before its WAL sync; whatever acts on what it
   * read outside the request (the webhook worker) waits for this first.
   */
  durable(): Promise<void>;
  /** Answers whether the database responds. */
  ping(): Promise<boolean>;
  /** Whether writes fail for want of storage (full disk): every `write` reports to it. */
  readonly storage: StorageHealth;
  /** Where batch sizes, WAL syncs and checkpoints are reported (http/observability.ts). */
  monitor(monitor: DatabaseMonitor): void;
  /** Every statement cache and memo of statement texts with its size and bound (metrics, tests). */
  cacheSizes(): CacheSize[];
  /** PostgreSQL: each workspace's requests holding and waiting for pool connections (admission.ts); SQLite: none. */
  tenantLoads(): TenantLoad[];
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL pool size. */
  readonly poolSize?: number;
  /** Sees every statement sent, with `?` or `$n` placeholders as sent (query plans: bench/explain.ts). */
  readonly onQuery?: (sql: string, params: readonly unknown[]) => void;
  /** The SQLite WAL's fdatasync (tests wrap it to see when it runs, or make it fail). */
  readonly fdatasync?: Fdatasync;
  /** Called once if the WAL cannot be synced; by default logs one line and exits 1 (wal-sync.ts). */
  readonly onFatal?: (error: Error) => void;
  /** Each SQLite statement cache's byte bound (default STATEMENT_CACHE_BYTES). */
  readonly statementCacheBytes?: number;
  /** Named statements per PostgreSQL connection at most (default NAMED_PER_CONNECTION). */
  readonly namedPerConnection?: number;
  /**
   * PostgreSQL: `statement_timeout` on every connection, and the same plus a margin as
   * the client's own wait for an answer, which also ends a wait across a network
   * partition, where the server's timeout never reaches us. 0 or absent: none.
   */
  readonly statementTimeoutMs?: number;
  /** PostgreSQL: how long one connection attempt may take (also a request's wait for its workspace's turn). */
  readonly connectTimeoutMs?: number;
  /**
   * PostgreSQL: `lock_timeout` on every transaction, far below the statement timeout, so a
   * request stuck behind another's row or advisory lock gives its connection back soon and
   * answers a retryable 503 (http/errors.ts). 0 or absent: none.
   */
  readonly lockTimeoutMs?: number;
  /**
   * PostgreSQL: the URL goes through a transaction pooler (PgBouncer `pool_mode =
   * transaction`): no startup parameters (the timeouts are set per transaction instead) and no
   * named statements, which a server connection shared by many clients would not keep.
   */
  readonly pooled?: boolean;
  /**
   * SQLite file: run the WAL checkpointer thread (default true). Off in a worker that only
   * reads and forwards its writes: the writer process checkpoints the one file for all.
   */
  readonly checkpoints?: boolean;
  /** PostgreSQL: streaming replicas for request reads, one per host of this URL (replicas.ts). */
  readonly readUrl?: string | null;
}

/** A request's wait for its workspace's turn at the pool when no connect timeout is set. */
const DEFAULT_ADMISSION_WAIT_MS = 5_000;

/** The client waits this much longer than the server's statement_timeout, so the server's cleaner error usually wins. */
const CLIENT_TIMEOUT_MARGIN_MS = 1_000;

/** Opens the database named by a `COLLABD_DATABASE_URL` value. */
export async function openDatabase(url: string, options: OpenOptions = {}): Promise<Database> {
  // Each driver is loaded only when used: start-up time is one of the targets (docs/performance.md "Targets").
  if (url.startsWith("sqlite:")) {
    return openSqlite(await loadSqlite(), url.slice("sqlite:".length), options);
  }
  const driver = (await import("pg")).default;
  const primary = openPostgres(driver, url, options);
  if (!options.readUrl) return primary;
  // Each replica its own pool, reached directly (a transaction pooler, if any, is in front of the primary only).
  const hosts = parsePostgresHosts(options.readUrl);
  const replicas = hosts.hosts.map((host) =>
    openPostgres(driver, hosts.urlFor(host), { ...options, readUrl: null, pooled: false }),
  );
  return withReplicas(primary, replicas);
}

/**
 * Each SQLite connection's page cache, in KiB: 4 MiB, not 16. A page it does not hold is read
 * from the kernel's page cache, which holds the file for every process at once. At 16 MiB the
 * caches of the writer and of both workers' readers filled under 1 M records and were 44 MB of
 * the service's peak, with no gain in gets or adds (docs/decisions.md "SQLite page caches").
 */
export const PAGE_CACHE_KIB = 4096;

function openSqlite(Sqlite: typeof BetterSqlite3, path: string, options: OpenOptions): Database {
  const inMemory = path === ":memory:" || path === "";
  const file = inMemory ? ":memory:" : resolve(path);
  if (!inMemory) mkdirSync(dirname(file), { recursive: true });
  const handle = new Sqlite(file);
  // WAL with synchronous=FULL: an acknowledged commit survives power loss (docs/architecture.md "Conventions").
  handle.pragma("journal_mode = WAL");
  handle.pragma("synchronous = FULL");
  handle.pragma("busy_timeout = 5000");
  // Checkpoints run on a thread of their own (checkpointer.ts); this is only the backstop, at ~40 MB of WAL.
  handle.pragma("wal_autocheckpoint = 10000");
  handle.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  const writer = withStatementCache("sqlite_writer_statements", handle, options.statementCacheBytes);
  const db = new Kysely<Tables>({
    dialect: new SqliteDialect({ database: writer.database }),
    plugins: [literalLimits],
    log: kyselyLog(options),
  });
  const readerHandle = inMemory ? null : new Sqlite(file);
  const { reader, caches } = readerHandle
    ? sqliteReader(readerHandle, options)
    : { reader: db, caches: () => [] };
  const monitor = monitorSlot();
  const walSync = inMemory
    ? null
    : new WalSync(`${file}-wal`, { fdatasync: options.fdatasync, onFatal: options.onFatal, monitor });
  const checkpointer =
    inMemory || options.checkpoints === false ? null : startCheckpointer(file, { monitor });
  const groupCommit = new GroupCommit(db, walSync && (() => walSync.sync()), { monitor });
  // Moves when another connection commits; this process's own writes use the writer, so they do not move it.
  const dataVersion = handle.prepare("pragma data_version").pluck();
  let versionThisTurn: number | undefined;
  // The probe commits on its own, outside group commit: failing, it must not take a batch down with it.
  const storage = new StorageHealth(() =>
    db.connection().execute((conn) => sqliteTransaction(conn, probeWork)),
  );
  return {
    db,
    reader: asReadDb(reader),
    readerFor: () => asReadDb(reader),
    dialect: "sqlite",
    dataDir: inMemory ? null : dirname(file),
    storage,
    write: (work, options) => storage.watch(groupCommit.run(work, options)),
    durable: async () => {
      await walSync?.sync();
    },
    externalVersion: () => {
      if (versionThisTurn === undefined) {
        versionThisTurn = dataVersion.get() as number;
        setImmediate(() => {
          versionThisTurn = undefined;
        });
      }
      return versionThisTurn;
    },
    ping: async () => {
      try {
        handle.prepare("select 1").get();
        return true;
      } catch {
        return false;
      }
    },
    monitor: (next) => {
      monitor.current = next;
    },
    cacheSizes: () => [writer.cache.size(), ...caches(), ...sharedCacheSizes()],
    tenantLoads: () => [],
    close: async () => {
      if (readerHandle) {
        await reader.destroy();
        // Kysely opens its side lazily and closes only what it opened: a reader never used would stay open.
        readerHandle.close();
      }
      await checkpointer?.stop();
      await walSync?.close();
      await db.destroy();
    },
  };
}

function sqliteReader(
  handle: BetterSqlite3.Database,
  options: OpenOptions,
): { reader: Kysely<Tables>; caches: () => CacheSize[] } {
  // A write here would wait on the writer's lock while blocking the event loop: refuse it instead.
  handle.pragma("query_only = ON");
  handle.pragma("busy_timeout = 5000");
  // The page cache, and a 32 MiB memory map of the file's first pages (read without a copy).
  handle.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  handle.pragma("mmap_size = 33554432");
  const budget = options.statementCacheBytes;
  const statements = withStatementCache("sqlite_reader_statements", handle, budget);
  const reader = new Kysely<Tables>({
    dialect: new SqliteDialect({ database: statements.database }),
    plugins: [literalLimits],
    log: kyselyLog(options),
  });
  // The hottest reads skip Kysely here (raw.ts); they keep statements apart from Kysely's, as pluck is a mode.
  const rows = statementCache("sqlite_direct_rows", (sql) => handle.prepare(sql), budget);
  const column = statementCache("sqlite_direct_column", (sql) => handle.prepare(sql).pluck(), budget);
  registerDirectReads(
    reader,
    observed(options, {
      rows: (sql, params) => rows(sql).all(...params),
      column: (sql, params) => column(sql).all(...params),
    }),
  );
  return { reader, caches: () => [statements.cache.size(), rows.size(), column.size()] };
}

function openPostgres(driver: typeof pg, url: string, options: OpenOptions): Database {
  // A schema other than public is chosen in the URL: `?options=-c%20search_path%3Dname`.
  const poolSize = options.poolSize ?? 10;
  const { statementTimeoutMs = 0, lockTimeoutMs = 0, pooled = false } = options;
  // Several hosts (a primary and its standbys): each new connection goes to the one that takes writes (targets.ts).
  const { connectionString, Client } = targeted(driver, url, options.connectTimeoutMs);
  const pool = new driver.Pool({
    connectionString,
    Client,
    max: poolSize,
    // Startup parameters: a transaction pooler refuses them, so there they are set per transaction.
    ...(statementTimeoutMs && !pooled ? { statement_timeout: statementTimeoutMs } : {}),
    ...(lockTimeoutMs && !pooled ? { lock_timeout: lockTimeoutMs } : {}),
    ...(statementTimeoutMs ? { query_timeout: statementTimeoutMs + CLIENT_TIMEOUT_MARGIN_MS } : {}),
    ...(options.connectTimeoutMs ? { connectionTimeoutMillis: options.connectTimeoutMs } : {}),
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
  pool.on("connect", (client) => {
    client.on("error", () => {});
    if (statementTimeoutMs) dropOnQueryTimeout(client);
  });
  // No workspace's requests hold more than half the pool (rounded up): the rest stays for the others.
  const admission = new TenantAdmission(
    Math.ceil(poolSize / 2),
    options.connectTimeoutMs ?? DEFAULT_ADMISSION_WAIT_MS,
  );
  const onBegin = [
    statementTimeoutMs ? `set local statement_timeout = ${statementTimeoutMs}` : "",
    lockTimeoutMs ? `set local lock_timeout = ${lockTimeoutMs}` : "",
  ].filter(Boolean);
  const prepared = new PreparedStatements(pool, {
    maxCount: pooled ? 0 : options.namedPerConnection,
    admission,
    ...(pooled && onBegin.length > 0 ? { onBegin: onBegin.join("; ") } : {}),
  });
  const db = new Kysely<Tables>({
    dialect: new SchemaScopedPostgresDialect({ pool: prepared.kyselyPool() }),
    plugins: [literalLimits],
    log: kyselyLog(options),
  });
  registerDirectReads(db, observed(options, postgresReads(prepared)));
  const storage = new StorageHealth(() => db.transaction().execute(probeWork));
  return {
    db,
    reader: asReadDb(db),
    readerFor: () => asReadDb(db),
    dialect: "postgres",
    dataDir: null,
    storage,
    // Concurrent PostgreSQL transactions already share WAL flushes; each caller gets its own.
    write: (work, options) =>
      storage.watch(
        db.transaction().execute((trx) => {
          const handle = asWriteTx(trx);
          return work(options?.budget ? withBudget(handle, options.budget) : handle);
        }),
      ),
    // A PostgreSQL commit is flushed before it becomes visible.
    durable: async () => {},
    externalVersion: () => null,
    ping: async () => {
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    // Group commit, WAL syncs and checkpoints are SQLite's; PostgreSQL reports none of them.
    monitor: () => {},
    cacheSizes: () => [...prepared.sizes(), ...sharedCacheSizes()],
    tenantLoads: () => admission.loads(),
    close: () => db.destroy(),
  };
}

/**
 * After pg's client-side query timeout the statement may still be running, or stuck in a
 * partition, and a transaction's ROLLBACK never sent: reused, the connection could commit
 * the abandoned work with the next caller's. Close it instead; the pool drops it on release.
 */
function dropOnQueryTimeout(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const result = query(...args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as Error)?.message === "Query read timeout") {
          (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
        }
      });
    }
    return result;
  };
}

function kyselyLog(options: OpenOptions) {
  const { onQuery } = options;
  if (!onQuery) return undefined;
  return (event: LogEvent) => {
    if (event.level === "query") onQuery(event.query.sql, event.query.parameters);
  };
}

function observed(options: OpenOptions, reads: DirectReads): DirectReads {
  const { onQuery } = options;
  if (!onQuery) return reads;
  return {
    rows: (sql, params) => {
      onQuery(sql, params);
      return reads.rows(sql, params);
    },
    column: (sql, params) => {
      onQuery(sql, params);
      return reads.column(sql, params);
    },
  };
}

/**
 * Reads straight on the pool (raw.ts), for the hottest queries: named per connection within
 * the same bound as the builder's statements, and by the same name for the same text.
 */
function postgresReads(prepared: PreparedStatements): DirectReads {
  return {
    rows: async (text, values) => (await prepared.query(toNumbered(text), values)).rows,
    column: async (text, values) =>
      (await prepared.query<unknown[]>(toNumbered(text), values, "array")).rows.map(
        (row) => (row as unknown as unknown[])[0],
      ),
  };
}

/** The migrator of `database` (also for tests that stop at an older migration). */
export async function migratorFor(database: Database): Promise<Migrator> {
  // Name the schema: Kysely's "does the migration table exist" check otherwise looks at every schema.
  const schema =
    database.dialect === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]
          ?.schema
      : undefined;
  return new Migrator({
    db: database.db,
    provider: { getMigrations: async () => migrations },
    // Migrations developed side by side land out of number order; one missing below the last that
    // ran still runs (docs/decisions.md "Migrations out of number order").
    allowUnorderedMigrations: true,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
}

/** Brings the schema up to date; safe to run from several processes at once. */
export async function migrate(database: Database): Promise<void> {
  const migrator = await migratorFor(database);
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName;
    throw new Error(`Migration ${failed ?? ""} failed: ${String(error)}`);
  }
}
