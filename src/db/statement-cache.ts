import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import { ByteLru, type CacheSize } from "./byte-lru.js";

/** Each SQLite statement cache's bound: with four per database, 16 MiB of RSS at most. */
export const STATEMENT_CACHE_BYTES = 4 << 20;

/**
 * What a prepared SQLite statement holds, estimated from its text: about 30 bytes of
 * compiled program per character for the multi-row upserts, measured with RSS over 50
 * statements of 1 to 500 rows (docs/decisions.md), plus a fixed part.
 */
export const statementBytes = (sql: string): number => 2048 + 32 * sql.length;

/** A bounded cache of prepared statements: `prepare(sql)` reuses, and `size()` reports. */
export interface StatementCache {
  (sql: string): BetterSqlite3.Statement;
  size(): CacheSize;
}

/**
 * Prepared statements reused by SQL text, bounded in bytes (least recently used out),
 * since `in (...)` lists and page sizes vary. Preparing costs as much as running a small
 * indexed query, and the service sends the same few shapes over and over.
 */
export function statementCache(
  name: string,
  prepare: (sql: string) => BetterSqlite3.Statement,
  budget = STATEMENT_CACHE_BYTES,
): StatementCache {
  const cache = new ByteLru<BetterSqlite3.Statement>(name, budget, statementBytes);
  return Object.assign((sql: string) => cache.getOrSet(sql, prepare), { size: () => cache.size() });
}

/**
 * better-sqlite3 behind Kysely, which otherwise prepares every query anew. PRAGMA
 * statements are the exception: a setting such as `synchronous = NORMAL` takes effect
 * when the statement is prepared, so running a cached one may change nothing.
 */
export function withStatementCache(
  name: string,
  handle: BetterSqlite3.Database,
  budget?: number,
): { database: SqliteDatabase; cache: StatementCache } {
  const cache = statementCache(name, (sql) => handle.prepare(sql), budget);
  return {
    cache,
    database: {
      close: () => handle.close(),
      prepare: (sql: string) =>
        (PRAGMA.test(sql) ? handle.prepare(sql) : cache(sql)) as unknown as SqliteStatement,
    },
  };
}

const PRAGMA = /^\s*pragma\b/i;
