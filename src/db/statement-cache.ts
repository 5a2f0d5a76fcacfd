import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/**
 * Prepared statements reused by SQL text, bounded (least recently used out), since
 * `in (...)` lists vary in length. Preparing costs as much as running a small indexed
 * query, and the service sends the same few shapes over and over.
 */
export function statementCache(
  prepare: (sql: string) => BetterSqlite3.Statement,
  capacity = 512,
): (sql: string) => BetterSqlite3.Statement {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return (sql) => {
    let statement = cache.get(sql);
    if (statement) {
      cache.delete(sql);
    } else {
      statement = prepare(sql);
      if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
    }
    cache.set(sql, statement);
    return statement;
  };
}

/**
 * better-sqlite3 behind Kysely, which otherwise prepares every query anew. PRAGMA
 * statements are the exception: a setting such as `synchronous = NORMAL` takes effect
 * when the statement is prepared, so running a cached one may change nothing.
 */
export function withStatementCache(handle: BetterSqlite3.Database): SqliteDatabase {
  const prepare = statementCache((sql) => handle.prepare(sql));
  return {
    close: () => handle.close(),
    prepare: (sql: string) =>
      (PRAGMA.test(sql) ? handle.prepare(sql) : prepare(sql)) as unknown as SqliteStatement,
  };
}

const PRAGMA = /^\s*pragma\b/i;
