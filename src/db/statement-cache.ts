import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/**
 * better-sqlite3 behind Kysely, with prepared statements reused by SQL text.
 * Kysely prepares every query anew; preparing costs as much as running a small
 * indexed query, and the service sends the same few shapes over and over.
 * Bounded (least recently used out), since `in (...)` lists vary in length.
 */
export function withStatementCache(handle: BetterSqlite3.Database, capacity = 512): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => handle.close(),
    prepare: (sql: string) => {
      let statement = cache.get(sql);
      if (statement) {
        cache.delete(sql);
      } else {
        statement = handle.prepare(sql) as unknown as SqliteStatement;
        if (cache.size >= capacity) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}
