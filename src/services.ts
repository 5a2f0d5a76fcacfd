import cluster from "node:cluster";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import { type Config, ConfigError } from "./config.js";
import type { Services } from "./context.js";
import { type Database, migrate, type OpenOptions, openDatabase } from "./db/database.js";
import { migrations } from "./db/migrations/index.js";
import { type Clock, systemClock } from "./lib/clock.js";
import type { HostResolver } from "./lib/host-resolver.js";
import { type IdGenerator, randomId } from "./lib/ids.js";
import { JobSignal } from "./lib/job-signal.js";
import { deriveKeys, type Keys } from "./lib/keys.js";
import { PageTokens } from "./lib/page-token.js";
import { parsePostgresHosts } from "./lib/pg-hosts.js";
import { dnsResolver } from "./webhooks/dns.js";

export interface ServiceOverrides {
  readonly clock?: Clock;
  readonly ids?: IdGenerator;
  /** How the database is opened (bench/explain.ts records every statement). */
  readonly database?: OpenOptions;
  /** Webhook host resolution (tests make names hang or point at 127.0.0.1). */
  readonly webhookResolver?: HostResolver;
  /** Told each start-up retry while PostgreSQL is unreachable, as one line; stderr by default. */
  readonly onRetry?: (message: string) => void;
  /**
   * false: the schema was brought up to date by another process (the SQLite writer's
   * supervisor, before forking it; src/cli/writer.ts), so one query checks that every
   * migration is recorded instead of running the migrator, which runs only if one is not.
   */
  readonly migrate?: boolean;
}

/** PostgreSQL stayed unreachable for the whole COLLABD_DATABASE_CONNECT_TIMEOUT_MS. */
export class DatabaseUnreachable extends Error {}

/** Opens and migrates the database and derives the keys: everything a server or CLI run needs. */
export async function openServices(config: Config, overrides: ServiceOverrides = {}): Promise<Services> {
  const database: Database = await openDatabase(config.databaseUrl, {
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    lockTimeoutMs: config.databaseLockTimeoutMs,
    // A direct URL beside it says COLLABD_DATABASE_URL is a transaction pooler (docs/postgres.md).
    pooled: config.databaseDirectUrl !== null,
    readUrl: config.databaseReadUrl,
    // A request waiting for a connection (a new one, or a free one in the pool) gives up
    // about when its statement would: a partition answers 503 in bounded time either way.
    connectTimeoutMs: config.databaseStatementTimeoutMs
      ? config.databaseStatementTimeoutMs + CONNECT_MARGIN_MS
      : CONNECT_ATTEMPT_MS,
    // COLLABD_WORKERS > 1: the workers share one process's 10 PostgreSQL connections, so
    // more processes do not mean more connections.
    ...(cluster.isWorker && config.workers > 1
      ? { poolSize: Math.max(2, Math.ceil(10 / config.workers)) }
      : {}),
    ...overrides.database,
  });
  try {
    await waitForDatabase(database, config, overrides.onRetry ?? printRetry);
    if (overrides.migrate !== false || !(await everyMigrationRecorded(database))) {
      await migrateWithoutTimeout(database, config, overrides.database);
    }
    const keys = resolveKeys(config, database);
    return {
      config,
      database,
      clock: overrides.clock ?? systemClock,
      ids: overrides.ids ?? randomId,
      pageTokens: new PageTokens(keys.pageToken),
      keys,
      webhookResolver:
        overrides.webhookResolver ??
        dnsResolver({ timeoutMs: config.webhookDnsTimeoutMs, perWorkspace: config.webhookDnsPerWorkspace }),
      jobs: new JobSignal(),
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** Without a statement timeout, one connection attempt gives up after this long (a host that drops packets). */
const CONNECT_ATTEMPT_MS = 5_000;
const CONNECT_MARGIN_MS = 1_000;
/** Start-up retries: the first after 100 ms, doubling, at most 5 s apart. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/** Errors that mean "not reachable yet" (down, restarting, starting up, full): worth a retry. */
const RETRYABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "57P01",
  "57P03",
  "53300",
]);
const RETRYABLE_MESSAGE = /^Connection terminated|timeout exceeded when trying to connect|Query read timeout/;

/**
 * PostgreSQL may start after collabd (a compose file, a reboot): retry the first query
 * with capped exponential backoff for COLLABD_DATABASE_CONNECT_TIMEOUT_MS, one line per
 * retry. Login and missing-database errors are not retried: waiting will not fix them.
 * SQLite answers at once. Also names a search_path schema that does not exist, which
 * PostgreSQL itself only reports as "no schema has been selected" at the first CREATE.
 */
async function waitForDatabase(database: Database, config: Config, onRetry: (message: string) => void) {
  if (database.dialect !== "postgres") return;
  const deadline = Date.now() + config.databaseConnectTimeoutMs;
  let delay = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      const { rows } = await sql<{ schema: string | null; path: string }>`
        select current_schema() as schema, current_setting('search_path') as path`.execute(database.db);
      const path = rows[0]?.path ?? "";
      if (!rows[0]?.schema) {
        throw new ConfigError(
          `No schema on the search_path (${path}) exists in this database: create it ` +
            "(create schema <name>) or fix search_path in COLLABD_DATABASE_URL.",
        );
      }
      return;
    } catch (error) {
      const e = error as { code?: string; message?: string };
      const retryable = RETRYABLE.has(e.code ?? "") || RETRYABLE_MESSAGE.test(e.message ?? "");
      if (!retryable) throw error;
      const cause = `${e.code ?? "error"}: ${e.message ?? String(error)}`;
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new DatabaseUnreachable(
          `PostgreSQL at ${where(config.databaseUrl)} is unreachable (${cause}) after ${attempt} ` +
            `attempt${attempt === 1 ? "" : "s"} in ${config.databaseConnectTimeoutMs} ms: start it, check ` +
            "COLLABD_DATABASE_URL, or wait longer with COLLABD_DATABASE_CONNECT_TIMEOUT_MS.",
        );
      }
      const wait = Math.min(delay, left);
      onRetry(
        `PostgreSQL at ${where(config.databaseUrl)} is unreachable (${cause}); retry ${attempt} in ${wait} ms.`,
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}

/**
 * Migrations may rewrite large tables: on PostgreSQL with a statement timeout they run on
 * a one-connection pool of their own without it (docs/decisions.md), so a long migration
 * is not cut short halfway through start-up. Behind a transaction pooler that pool is
 * a direct one (COLLABD_DATABASE_DIRECT_URL): DDL and its locks need no pooler in between.
 */
async function migrateWithoutTimeout(database: Database, config: Config, options: OpenOptions = {}) {
  if (
    database.dialect !== "postgres" ||
    (config.databaseStatementTimeoutMs === 0 && config.databaseDirectUrl === null)
  ) {
    await migrate(database);
    return;
  }
  const untimed = await openDatabase(config.databaseDirectUrl ?? config.databaseUrl, {
    ...options,
    poolSize: 1,
    statementTimeoutMs: 0,
    lockTimeoutMs: 0,
    pooled: false,
    connectTimeoutMs: CONNECT_ATTEMPT_MS,
  });
  try {
    await migrate(untimed);
  } finally {
    await untimed.close();
  }
}

/**
 * Whether every migration this build knows has run: one indexed count, where the migrator's
 * introspection and locking took most of a restarted writer's own start-up.
 */
async function everyMigrationRecorded(database: Database): Promise<boolean> {
  const names = Object.keys(migrations);
  try {
    const { rows } = await sql<{ recorded: number | string }>`
      select count(*) as recorded from kysely_migration
      where name in (${sql.join(names)})`.execute(database.db);
    return Number(rows[0]?.recorded) === names.length;
  } catch {
    return false; // no migration table yet
  }
}

/** host:port of a PostgreSQL URL, never its password. */
function where(url: string): string {
  return parsePostgresHosts(url)
    .hosts.map((h) => `${h.host}:${h.port}`)
    .join(",");
}

function printRetry(message: string): void {
  process.stderr.write(`collabd: ${message}\n`);
}

/**
 * Finds the key material (docs/contract.md "Running the service"): COLLABD_SECRET when set; on a SQLite file a secret
 * generated into the data dir on first start (mode 0600) and reused; in memory a fresh one.
 */
function resolveKeys(config: Config, database: Database): Keys {
  return deriveKeys(config.secret ?? fallbackSecret(database));
}

function fallbackSecret(database: Database): string {
  if (database.dialect === "postgres") {
    throw new ConfigError("COLLABD_SECRET is required with PostgreSQL: every process must share it.");
  }
  if (database.dataDir === null) return randomBytes(32).toString("base64url");
  const file = join(database.dataDir, "secret");
  if (!existsSync(file))
    writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
  return readFileSync(file, "utf8").trim();
}
