import { createHash } from "node:crypto";
import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";

const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * A pg pool whose clients run data statements as named prepared statements, so
 * PostgreSQL parses and plans each distinct query once per connection instead of on
 * every call (Kysely sends unnamed queries). DDL stays unnamed, and each connection
 * prepares at most `perClient` distinct statements (`in (...)` lists vary in length).
 */
export function withPreparedStatements(pool: pg.Pool, perClient = 256): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    end: () => pool.end(),
    connect: async () => {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        const prepared = new Map<string, string>();
        const named = client as pg.PoolClient;
        wrapper = {
          release: () => named.release(),
          query: ((text: string | object, values?: readonly unknown[]) => {
            if (typeof text !== "string" || !DATA_STATEMENT.test(text)) {
              return named.query(text as never, values as unknown[]);
            }
            let name = prepared.get(text);
            if (name === undefined && prepared.size < perClient) {
              name = statementName(text);
              prepared.set(text, name);
            }
            return name === undefined
              ? named.query(text, values as unknown[])
              : named.query({ name, text, values: values as unknown[] });
          }) as unknown as PostgresPoolClient["query"],
        };
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
  };
}

const names = new Map<string, string>();

/**
 * The prepared statement's name for a query text: the same in every process and
 * connection. Remembered for the first 1000 texts, which every connection shares.
 */
export function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `q${createHash("sha1").update(text).digest("base64url").slice(0, 16)}`;
    if (names.size < 1000) names.set(text, name);
  }
  return name;
}
