import {
  CompiledQuery,
  type Kysely,
  type KyselyPlugin,
  LimitNode,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresAdapter,
  type QueryResult,
  type RootOperationNode,
  SelectQueryNode,
  type UnknownRow,
  ValueNode,
} from "kysely";
import { chargeStatement } from "./budget.js";
import { sharedTextMemo } from "./byte-lru.js";
import type { Tables } from "./tables.js";

/**
 * A shorter way to run a read outside any transaction, straight on the driver: the SQLite
 * reader (synchronous, so nothing can interleave and Kysely's connection queue is moot) or
 * the PostgreSQL pool. It skips Kysely's executor, and `column` reads one column without
 * building row objects. Texts use `?` placeholders, as here.
 */
export interface DirectReads {
  rows(text: string, params: readonly unknown[]): unknown[] | Promise<unknown[]>;
  column(text: string, params: readonly unknown[]): unknown[] | Promise<unknown[]>;
}

const direct = new WeakMap<Kysely<Tables>, DirectReads>();

/** Lets `rawRows`/`rawColumn` on `db` itself (not its transactions) run through `reads` (database.ts). */
export function registerDirectReads(db: Kysely<Tables>, reads: DirectReads): void {
  direct.set(db, reads);
}

const numbered = sharedTextMemo("numbered_texts");

/**
 * Runs hand-written SQL with `?` placeholders (rewritten to `$1…` on PostgreSQL).
 * Only for the hottest statements, where building and compiling the query each time
 * costs as much as running it (docs/performance.md); everything else uses the builder.
 * Writes pass their transaction (`trx`), which never takes the direct path.
 */
export async function rawRows<R>(db: Kysely<Tables>, text: string, params: readonly unknown[]): Promise<R[]> {
  const reads = direct.get(db);
  if (reads) return reads.rows(text, params) as R[];
  return (await execute<R>(db, text, params)).rows;
}

/** A boolean SQL condition with `?` placeholders and their values, for a hand-written statement to combine. */
export interface RawCondition {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** `?, ?, …`: the placeholders of an `in (…)` list of `count` values. */
export function placeholders(count: number): string {
  return Array.from({ length: count }, () => "?").join(", ");
}

/** As `rawRows` for a query selecting one column: that column's values, in order. */
export async function rawColumn<T>(
  db: Kysely<Tables>,
  text: string,
  params: readonly unknown[],
): Promise<T[]> {
  const reads = direct.get(db);
  if (reads) return reads.column(text, params) as T[];
  const rows = (await execute<Record<string, T>>(db, text, params)).rows;
  const name = rows[0] === undefined ? undefined : Object.keys(rows[0])[0];
  return name === undefined ? [] : rows.map((row) => row[name] as T);
}

function execute<R>(db: Kysely<Tables>, text: string, params: readonly unknown[]) {
  chargeStatement(db, text, params);
  const isPostgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db.executeQuery<R>(CompiledQuery.raw(isPostgres ? toNumbered(text) : text, [...params]));
}

/** `?` placeholders as PostgreSQL's `$1…`. */
export function toNumbered(text: string): string {
  return numbered.getOrSet(text, (key) => {
    let n = 0;
    return key.replace(/\?/g, () => `$${++n}`);
  });
}

/**
 * Row limits are written into the SQL text instead of bound, for every query built with
 * Kysely (this plugin, on each instance) and for hand-written text (`rowLimit`). SQLite
 * treats a bound LIMIT as a planner input, so every new binding re-prepares the statement
 * (about 40 % of a 20-row page read, measured); a literal keeps one prepared statement per
 * page size.
 */
export class LiteralLimitPlugin implements KyselyPlugin {
  // Only the statement's own LIMIT (no subquery here has one): a full tree walk on every
  // query cost about 2 µs per select.
  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    if (!SelectQueryNode.is(node)) return node;
    const limit = node.limit?.limit;
    if (!limit || !ValueNode.is(limit) || limit.immediate || typeof limit.value !== "number") return node;
    return { ...node, limit: LimitNode.create(ValueNode.createImmediate(rowLimit(limit.value))) };
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** The limit for SQL text: a non-negative integer, or a programming error. */
export function rowLimit(rows: number): number {
  if (!Number.isSafeInteger(rows) || rows < 0) throw new Error(`Invalid row limit ${rows}.`);
  return rows;
}
