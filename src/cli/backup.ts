import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type BetterSqlite3 from "better-sqlite3";
import type { Config } from "../config.js";
import { migrations } from "../db/migrations/index.js";
import { loadSqlite } from "../db/sqlite-driver.js";
import type { Flags, Printed } from "./workspace-commands.js";
import { UsageError } from "./workspace-commands.js";

type Handle = BetterSqlite3.Database;

/** The largest step better-sqlite3 passes to sqlite3_backup_step. */
const ALL_PAGES = 0x7fffffff;

const PG_HINT =
  "collabd backup and restore work on SQLite. On PostgreSQL use pg_dump and pg_restore (README, Backup and restore).";

/**
 * `collabd backup <file>`: an online copy of the SQLite database (SQLite's backup API, so
 * a running server keeps serving and the copy is one consistent state), written next to
 * `<file>`, checked, then renamed into place. `collabd restore <file>`: copies a backup
 * into the configured database; refuses while another process (a running server) holds
 * it, unless `--force`, which restores into the live database under the server.
 */
export async function runBackupCommand(
  config: Config,
  verb: "backup" | "restore",
  file: string | undefined,
  flags: Flags,
): Promise<Printed> {
  if (!file) throw new UsageError(`collabd ${verb} needs a file: collabd ${verb} <file>.`);
  const target = sqlitePath(config.databaseUrl);
  const force = flags.force === true;
  return verb === "backup"
    ? backupDatabase(target, resolve(file), { force, keyFile: keyFileOf(config, target) })
    : restoreDatabase(resolve(file), target, { force });
}

/** The SQLite file the URL names; backup and restore need one. */
function sqlitePath(url: string): string {
  if (!url.startsWith("sqlite:")) throw new UsageError(PG_HINT);
  const path = url.slice("sqlite:".length);
  if (path === "" || path === ":memory:")
    throw new UsageError("An in-memory database has nothing to back up.");
  return resolve(path);
}

/** Without COLLABD_SECRET the key material lives beside the database: a backup needs it too. */
function keyFileOf(config: Config, database: string): string | null {
  const file = join(dirname(database), "secret");
  return config.secret === null && existsSync(file) ? file : null;
}

async function open(path: string): Promise<Handle> {
  const Sqlite = await loadSqlite();
  const handle = new Sqlite(path, { fileMustExist: true });
  handle.pragma("busy_timeout = 5000");
  return handle;
}

/**
 * Opened for reading only, yet not `readonly`: a read-only connection to a WAL database
 * leaves its -wal and -shm files behind when it closes; a read-write one that writes
 * nothing removes them as the last connection out.
 */
async function openToRead(path: string): Promise<Handle> {
  const handle = await open(path);
  handle.pragma("query_only = 1");
  return handle;
}

export async function backupDatabase(
  source: string,
  file: string,
  options: { force?: boolean; keyFile?: string | null } = {},
): Promise<Printed> {
  if (!existsSync(source)) {
    throw new UsageError(
      `No database at ${source}: set COLLABD_DATABASE_URL to the server's database (a relative path is taken from the current directory).`,
    );
  }
  if (existsSync(file) && !options.force) {
    throw new UsageError(`${file} exists; pass --force to overwrite it.`);
  }
  // A database with no workspace is one nothing was ever stored in: most likely the wrong
  // one (a relative path from another folder), and its "backup" would restore nothing.
  const { tables: live } = await inspect(source);
  if ((live.workspaces ?? 0) === 0) {
    throw new UsageError(
      `${source} holds no workspace: nothing to back up. Is COLLABD_DATABASE_URL the server's database?`,
    );
  }
  const partial = join(dirname(file), `.${basename(file)}.partial-${process.pid}`);
  mkdirSync(dirname(file), { recursive: true });
  let tables: Record<string, number>;
  try {
    const handle = await open(source);
    try {
      // All pages in one step under one read transaction: a consistent copy even while a
      // server keeps writing (a step-by-step copy restarts whenever another process writes).
      await handle.backup(partial, { progress: () => ALL_PAGES });
    } finally {
      handle.close();
    }
    ({ tables } = await inspect(partial));
  } catch (error) {
    removeWithSidecars(partial);
    throw error;
  }
  renameSync(partial, file);
  syncDirectory(dirname(file));
  const bytes = statSync(file).size;
  const keyNote = options.keyFile
    ? `\nThe key material is not in the backup: keep ${options.keyFile} (or set COLLABD_SECRET) with it.`
    : "";
  return {
    json: { backup: file, bytes, workspaces: tables.workspaces ?? 0, keyFile: options.keyFile ?? null },
    text: `Backed up ${source} to ${file} (${bytes} bytes).${keyNote}`,
  };
}

export async function restoreDatabase(
  file: string,
  target: string,
  options: { force?: boolean } = {},
): Promise<Printed> {
  if (!existsSync(file)) throw new UsageError(`No backup at ${file}.`);
  await inspect(file);
  const exists = existsSync(target);
  const held = exists && (await inUse(target));
  if (held && !options.force) {
    throw new UsageError(
      `${target} is in use by another process (a running collabd?). Stop it first, ` +
        "or pass --force to restore into the live database.",
    );
  }
  if (exists && !options.force) {
    throw new UsageError(`${target} exists; pass --force to replace it with the backup.`);
  }
  mkdirSync(dirname(target), { recursive: true });
  // Through SQLite's backup API, not a file copy: the target's WAL (and any reader) stays consistent.
  const handle = await openToRead(file);
  try {
    await handle.backup(target, { progress: () => ALL_PAGES });
  } finally {
    handle.close();
  }
  return {
    json: { restored: file, into: target, forced: held },
    text: `Restored ${file} into ${target}${held ? " under the running process (--force)" : ""}.`,
  };
}

/** Checks a file is a sound collabd database this version can run; returns row counts. */
async function inspect(path: string): Promise<{ tables: Record<string, number> }> {
  let handle: Handle;
  try {
    handle = await openToRead(path);
  } catch (error) {
    throw new UsageError(`${path} is not a SQLite database: ${(error as Error).message}`);
  }
  try {
    const check = handle.pragma("quick_check", { simple: true });
    if (check !== "ok") throw new UsageError(`${path} fails SQLite's quick_check: ${String(check)}`);
    const names = new Set(
      (handle.prepare("select name from sqlite_master where type = 'table'").all() as { name: string }[]).map(
        (r) => r.name,
      ),
    );
    if (!names.has("workspaces") || !names.has("kysely_migration")) {
      throw new UsageError(`${path} is not a collabd database.`);
    }
    const applied = (handle.prepare("select name from kysely_migration").all() as { name: string }[]).map(
      (r) => r.name,
    );
    const unknown = applied.filter((name) => !(name in migrations));
    if (unknown.length > 0) {
      throw new UsageError(`${path} comes from a newer collabd (migration ${unknown[0]}); upgrade first.`);
    }
    const workspaces = handle.prepare("select count(*) as n from workspaces").get() as { n: number };
    return { tables: { workspaces: workspaces.n } };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${path} cannot be read as a collabd database: ${(error as Error).message}`);
  } finally {
    handle.close();
  }
}

/**
 * Whether another connection holds the database. Every connection to a WAL database keeps
 * a shared lock while open, so an exclusive lock taken without waiting fails while a
 * server (or any other process) has it open, and succeeds otherwise.
 */
async function inUse(path: string): Promise<boolean> {
  const handle = await open(path);
  try {
    handle.pragma("busy_timeout = 0");
    handle.pragma("locking_mode = EXCLUSIVE");
    handle.exec("begin exclusive; commit");
    return false;
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return true;
    throw error;
  } finally {
    handle.close();
  }
}

/** Removes a file and the -wal/-shm files SQLite keeps beside it. */
function removeWithSidecars(path: string): void {
  rmSync(path, { force: true });
  rmSync(`${path}-wal`, { force: true });
  rmSync(`${path}-shm`, { force: true });
}

/** Makes a rename durable: fsync of the directory that holds the new name. */
function syncDirectory(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
