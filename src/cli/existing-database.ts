import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Config } from "../config.js";
import { loadSqlite } from "../db/sqlite-driver.js";
import { targeted } from "../db/targets.js";
import { UsageError } from "./workspace-commands.js";

const FIRST =
  "run collabd migrate (or collabd serve) there first, or set COLLABD_DATABASE_URL to the server's database";

/**
 * Admin commands work on the database a server already uses: they never create one, nor
 * the key material beside it. Only `serve` and `migrate` may (docs/decisions.md, "The CLI
 * never creates a database"). Checked before anything is opened for writing, so a command
 * run from the wrong folder fails with one line naming the database it looked for instead
 * of working on a new, empty one. The SQLite path resolves exactly as `serve` resolves it:
 * relative to the current directory.
 */
export async function requireExistingDatabase(config: Config): Promise<void> {
  if (config.databaseUrl.startsWith("sqlite:")) return requireSqliteFile(config);
  return requirePostgresSchema(config.databaseUrl);
}

/** The SQLite file named by the URL, absolute. */
export function sqliteFile(url: string): string | null {
  const path = url.slice("sqlite:".length);
  return path === "" || path === ":memory:" ? null : resolve(path);
}

async function requireSqliteFile(config: Config): Promise<void> {
  const file = sqliteFile(config.databaseUrl);
  if (file === null) {
    throw new UsageError(
      "COLLABD_DATABASE_URL names an in-memory database, which lives only inside a running server: set it to the server's database.",
    );
  }
  if (!existsSync(file)) throw new UsageError(`No collabd database at ${file}: ${FIRST}.`);
  const Sqlite = await loadSqlite();
  const handle = new Sqlite(file, { fileMustExist: true });
  try {
    handle.pragma("busy_timeout = 5000");
    const found = handle.prepare("select 1 from sqlite_master where type = 'table' and name = ?");
    if (found.get("kysely_migration") === undefined) {
      throw new UsageError(`${file} is not a collabd database: ${FIRST}.`);
    }
  } finally {
    handle.close();
  }
  const secretFile = join(dirname(file), "secret");
  if (config.secret === null && !existsSync(secretFile)) {
    throw new UsageError(
      `No key material for ${file}: COLLABD_SECRET is not set and ${secretFile} is missing; set COLLABD_SECRET to the server's.`,
    );
  }
}

async function requirePostgresSchema(url: string): Promise<void> {
  const pg = (await import("pg")).default;
  const { connectionString, Client, target } = targeted(pg, url, 10_000);
  const client = new Client({ connectionString, connectionTimeoutMillis: 10_000 });
  const where = target.hosts.hosts.map((h) => `${h.host}:${h.port}`).join(",");
  try {
    await client.connect();
  } catch (error) {
    const e = error as { code?: string; message?: string };
    // Login and missing-database errors keep their codes: describeFailure names the fix.
    if (e.code && /^(28|3D)/.test(e.code)) throw error;
    throw new UsageError(
      `PostgreSQL at ${where} is unreachable (${e.code ?? e.message}): start it or fix COLLABD_DATABASE_URL.`,
    );
  }
  try {
    const { rows } = await client.query<{ database: string; schema: string | null; present: boolean }>(
      "select current_database() as database, current_schema() as schema, " +
        "to_regclass('kysely_migration') is not null as present",
    );
    const row = rows[0]!;
    if (!row.present) {
      const schema = row.schema === null ? "no existing schema on its search_path" : `schema ${row.schema}`;
      throw new UsageError(
        `No collabd database in PostgreSQL database ${row.database} at ${where} (${schema}): ${FIRST}.`,
      );
    }
  } finally {
    await client.end();
  }
}
