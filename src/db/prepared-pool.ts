import { createHash } from "node:crypto";
import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";
import type { TenantAdmission } from "./admission.js";
import { type CacheSize, sharedTextMemo, stringBytes } from "./byte-lru.js";

const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;
/** How Kysely opens a transaction (`begin`, or `start transaction isolation level …`). */
const BEGIN = /^\s*(begin|start transaction)\b/i;

export interface PoolOptions {
  /** Named statements per connection at most (0: every statement unnamed, as a transaction pooler needs). */
  readonly maxCount?: number;
  readonly maxBytes?: number;
  /** Per-workspace admission in front of the pool (admission.ts); none: every caller goes straight to it. */
  readonly admission?: TenantAdmission;
  /**
   * Statements sent with every transaction's BEGIN, in the same round trip (`set local …`):
   * settings a transaction pooler cannot take as startup parameters.
   */
  readonly onBegin?: string;
}

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
  private readonly maxCount: number;
  private readonly maxBytes: number;
  private readonly admission: TenantAdmission | undefined;
  private readonly onBegin: string | undefined;

  constructor(
    private readonly pgPool: pg.Pool,
    options: PoolOptions = {},
  ) {
    this.maxCount = options.maxCount ?? NAMED_PER_CONNECTION;
    this.maxBytes = options.maxBytes ?? NAMED_BYTES_PER_CONNECTION;
    this.admission = options.admission;
    this.onBegin = options.onBegin;
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
    const { client, leave } = await this.connect();
    try {
      const result = await client.query<R>(this.config(client, text, values, rowMode));
      client.release();
      return result;
    } catch (error) {
      client.release(error as Error);
      throw error;
    } finally {
      leave();
    }
  }

  /** A pooled connection, once the calling request's workspace has a place (admission.ts). */
  private async connect(): Promise<{ client: pg.PoolClient; leave: () => void }> {
    const leave = this.admission ? await this.admission.enter() : () => {};
    try {
      return { client: await this.pgPool.connect(), leave };
    } catch (error) {
      leave();
      throw error;
    }
  }

  /**
   * The pool as Kysely uses it: data statements named per connection, each checkout admitted
   * for its workspace first (admission.ts), and `onBegin` sent with every BEGIN.
   */
  kyselyPool(): PostgresPool {
    // One wrapper per pg client, as Kysely keys its connections by it; `leave` is per checkout.
    const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
    const leaves = new WeakMap<pg.PoolClient, () => void>();
    const onBegin = this.onBegin;
    const sent = (text: string) => (onBegin !== undefined && BEGIN.test(text) ? `${text}; ${onBegin}` : text);
    return {
      end: () => this.pgPool.end(),
      connect: async () => {
        const { client, leave } = await this.connect();
        leaves.set(client, leave);
        let wrapper = wrappers.get(client);
        if (!wrapper) {
          wrapper = {
            release: () => {
              const left = leaves.get(client);
              leaves.delete(client);
              client.release();
              left?.();
            },
            query: ((text: string | object, values?: readonly unknown[]) =>
              typeof text === "string"
                ? client.query(this.config(client, sent(text), values ?? []))
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
