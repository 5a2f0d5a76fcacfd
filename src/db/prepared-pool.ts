import { createHash } from "node:crypto";
import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import { type CacheSize, sharedTextMemo, stringBytes } from "./byte-lru.js";

const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/** Named statements per connection, at most: beyond either bound, statements go unnamed. */
export const NAMED_PER_CONNECTION = 256;
export const NAMED_BYTES_PER_CONNECTION = 1 << 20;

/**
 * Which statements PostgreSQL has prepared on each pooled connection, for both paths that
 * name them (Kysely's, through `pool()`, and the direct reads, through `query`). A named
 * statement costs server memory per connection and pg's client keeps its text, so each
 * connection names at most `maxCount` statements of `maxBytes` of text; later shapes run
 * unnamed (parsed each time). No DEALLOCATE: pg's client keeps its own record of the
 * names it has parsed, which one would make stale (docs/decisions.md). The pool closes
 * idle connections, which starts their set afresh.
 */
export class PreparedStatements {
  private readonly connections = new Map<pg.PoolClient, { names: Map<string, string>; bytes: number }>();

  constructor(
    private readonly pgPool: pg.Pool,
    private readonly maxCount = NAMED_PER_CONNECTION,
    private readonly maxBytes = NAMED_BYTES_PER_CONNECTION,
  ) {
    pgPool.on("remove", (client) => this.connections.delete(client));
  }

  /** The query to send on `client`: named if this connection has prepared it or has room. */
  config(client: pg.PoolClient, text: string, values: readonly unknown[], rowMode?: "array"): pg.QueryConfig {
    const query: pg.QueryConfig = { text, values: [...values], ...(rowMode ? { rowMode } : {}) };
    if (!DATA_STATEMENT.test(text)) return query;
    let prepared = this.connections.get(client);
    if (prepared === undefined) {
      prepared = { names: new Map(), bytes: 0 };
      this.connections.set(client, prepared);
    }
    let name = prepared.names.get(text);
    const bytes = stringBytes(text);
    if (
      name === undefined &&
      prepared.names.size < this.maxCount &&
      prepared.bytes + bytes <= this.maxBytes
    ) {
      name = statementName(text);
      prepared.names.set(text, name);
      prepared.bytes += bytes;
    }
    return name === undefined ? query : { ...query, name };
  }

  /** Runs one statement on a pooled connection, as `pool.query` would (a failed one is not reused). */
  async query<R extends pg.QueryResultRow>(text: string, values: readonly unknown[], rowMode?: "array") {
    const client = await this.pgPool.connect();
    try {
      const result = await client.query<R>(this.config(client, text, values, rowMode));
      client.release();
      return result;
    } catch (error) {
      client.release(error as Error);
      throw error;
    }
  }

  /** The pool as Kysely uses it: data statements named per connection. */
  kyselyPool(): PostgresPool {
    const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
    return {
      end: () => this.pgPool.end(),
      connect: async () => {
        const client = await this.pgPool.connect();
        let wrapper = wrappers.get(client);
        if (!wrapper) {
          wrapper = {
            release: () => client.release(),
            query: ((text: string | object, values?: readonly unknown[]) =>
              typeof text === "string"
                ? client.query(this.config(client, text, values ?? []))
                : client.query(text as never, values as unknown[])) as unknown as PostgresPoolClient["query"],
          };
          wrappers.set(client, wrapper);
        }
        return wrapper;
      },
    };
  }

  /** One entry per open connection: the statements named on it. */
  sizes(): CacheSize[] {
    return [...this.connections.values()].map((prepared) => ({
      name: "postgres_named_statements",
      entries: prepared.names.size,
      bytes: prepared.bytes,
      budget: this.maxBytes,
    }));
  }
}

const names = sharedTextMemo("statement_names");

/** The prepared statement's name for a query text: the same in every process and connection. */
export function statementName(text: string): string {
  return names.getOrSet(text, (key) => `q${createHash("sha1").update(key).digest("base64url").slice(0, 16)}`);
}
