import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

/**
 * Which better-sqlite3 this Node.js runs (docs/decisions.md "Node.js versions").
 *
 * - From Node.js 22: better-sqlite3 13, installed as the optional `better-sqlite3-napi`. It is
 *   built on Node-API and ships prebuilt binaries. Version 12 aborts on Node.js 24: its objects
 *   extend Node 24's `node::ObjectWrap`, whose destructor asserts an environment that is gone at
 *   exit (and, reported elsewhere, at some collections while running).
 * - On Node.js 20: better-sqlite3 12, compiled at install. Version 13 crashes there at the first
 *   statement, and npm leaves the optional package out on 20 (its engines say `>=22`).
 */
const NAPI_BUILD = "better-sqlite3-napi";
const COMPILED_BUILD = "better-sqlite3";

const require = createRequire(import.meta.url);

function chooseDriver(): string {
  const major = Number(process.versions.node.split(".")[0]);
  if (major < 22) return COMPILED_BUILD;
  try {
    require.resolve(NAPI_BUILD);
    return NAPI_BUILD;
  } catch {
    // Installed without optional dependencies: version 12 still runs, and still aborts at exit on 24.
    return COMPILED_BUILD;
  }
}

/** The package name this process loads SQLite from. */
export const SQLITE_DRIVER = chooseDriver();

/** The driver's constructor, loaded on first use: start-up time is one of the targets (docs/performance.md). */
export async function loadSqlite(): Promise<typeof BetterSqlite3> {
  return ((await import(SQLITE_DRIVER)) as { default: typeof BetterSqlite3 }).default;
}

/** The driver's entry file, for a worker thread that loads it with require(). */
export function sqliteDriverFile(): string {
  return require.resolve(SQLITE_DRIVER);
}
