import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { Dialect, OpenOptions } from "../../src/db/database.js";

/**
 * What a suite runs on: a database dialect, or PostgreSQL reached through PgBouncer in
 * transaction mode (`postgres-pgbouncer`, started by the global setup: test/support/pgbouncer.ts).
 */
export type TestDialect = Dialect | "postgres-pgbouncer";

/** Dialects every store and HTTP suite runs on; COLLABD_TEST_DIALECTS narrows it for a quick local loop. */
export const DIALECTS: readonly TestDialect[] = (process.env.COLLABD_TEST_DIALECTS ?? "sqlite,postgres")
  .split(",")
  .map((d) => d.trim() as TestDialect);

/** The PostgreSQL dialects of this run (direct, and through PgBouncer). */
export const POSTGRES_DIALECTS: readonly TestDialect[] = DIALECTS.filter((d) => d !== "sqlite");

/** The database a test dialect runs on. */
export function databaseDialect(dialect: TestDialect): Dialect {
  return dialect === "sqlite" ? "sqlite" : "postgres";
}

export const POSTGRES_URL =
  process.env.COLLABD_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A database of its own for one test run: a temp SQLite file, or a fresh PostgreSQL schema or database. */
export interface ScratchDatabase {
  readonly url: string;
  /** A direct (session) connection to the same database, for a test's own lock holder or NOTIFY. */
  readonly directUrl: string;
  /** What a collabd process needs to reach it (COLLABD_DATABASE_URL, and the direct URL behind a pooler). */
  readonly env: Readonly<Record<string, string>>;
  /** How a test opens it itself (`openDatabase(url, {...options})`): pooled behind PgBouncer. */
  readonly options: OpenOptions;
  drop(): Promise<void>;
}

export async function scratchDatabase(dialect: TestDialect): Promise<ScratchDatabase> {
  if (dialect === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "collabd-test-"));
    const url = `sqlite:${join(dir, "collabd.db")}`;
    return {
      url,
      directUrl: url,
      env: { COLLABD_DATABASE_URL: url },
      options: {},
      drop: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  if (dialect === "postgres-pgbouncer") return pooledDatabase();
  const schema = `t_${randomBytes(6).toString("hex")}`;
  await adminQuery(`create schema ${schema}`);
  const separator = POSTGRES_URL.includes("?") ? "&" : "?";
  const url = `${POSTGRES_URL}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    url,
    directUrl: url,
    env: { COLLABD_DATABASE_URL: url },
    options: {},
    drop: () => adminQuery(`drop schema if exists ${schema} cascade`),
  };
}

/** Names of the databases a PgBouncer run creates start with this (global-setup.ts drops them at the end). */
export function pooledDatabasePrefix(run: string): string {
  return `t_pgb_${run}_`;
}

/**
 * A database of its own behind the run's PgBouncer: PgBouncer passes no `options` startup
 * parameter, so a schema cannot be chosen per connection; a database can (`* =` in its
 * configuration). DROP DATABASE costs a checkpoint (seconds): it is left to the end of the run.
 */
async function pooledDatabase(): Promise<ScratchDatabase> {
  const bouncer = process.env.COLLABD_TEST_PGBOUNCER_URL;
  const run = process.env.COLLABD_TEST_PGBOUNCER_RUN;
  if (!bouncer || !run) {
    throw new Error(
      "postgres-pgbouncer needs the PgBouncer the global setup starts (test/support/global-setup.ts)",
    );
  }
  const name = `${pooledDatabasePrefix(run)}${randomBytes(5).toString("hex")}`;
  await adminQuery(`create database ${name}`);
  const url = `${bouncer}${name}`;
  const direct = directUrlFor("postgres-pgbouncer", url);
  return {
    url,
    directUrl: direct,
    env: { COLLABD_DATABASE_URL: url, COLLABD_DATABASE_DIRECT_URL: direct },
    options: { pooled: true },
    drop: async () => {},
  };
}

/** The direct URL of a database a test dialect reaches at `url` (the same but behind PgBouncer). */
export function directUrlFor(dialect: TestDialect, url: string): string {
  if (dialect !== "postgres-pgbouncer") return url;
  const direct = new URL(POSTGRES_URL);
  direct.pathname = new URL(url).pathname;
  return direct.toString();
}

/** Runs one statement on the PostgreSQL server itself (not through PgBouncer). */
export async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
