import type {
  Kysely,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from "kysely";
import { invalidArgument } from "../errors.js";
import type { Readable } from "./handles.js";
import type { Tables } from "./tables.js";

/** What one request may make the writer do: rows and bytes, read and written together. */
export interface WorkLimits {
  readonly rows: number;
  readonly bytes: number;
}

/** For the process's own bounded work (erasure batches, webhook bookkeeping): counted, never refused. */
export const UNBOUNDED: WorkLimits = { rows: Number.POSITIVE_INFINITY, bytes: Number.POSITIVE_INFINITY };

/** The environment variable that sets each limit, named in the refusal (README "Limits"). */
const LIMIT_VARIABLES = { rows: "COLLABD_WRITE_BUDGET_ROWS", bytes: "COLLABD_WRITE_BUDGET_BYTES" } as const;

/**
 * The work budget of one request (docs/decisions.md, "Work budgets"): every statement its
 * writes run is charged here by the plugin `withBudget` installs — rows read and written,
 * bytes of parameters sent and of rows read — so no store function can forget it. Past a
 * limit the statement fails with INVALID_ARGUMENT naming the limit; the write's savepoint
 * (or transaction) is rolled back, so nothing of the request is kept. A verb about to do
 * costly work in memory first (merging and serializing many records) asks `expectWork`.
 * The group commit reads `rowsWritten`/`bytesWritten` to bound its batches by real work.
 */
export class WorkBudget {
  rowsRead = 0;
  rowsWritten = 0;
  bytesRead = 0;
  bytesWritten = 0;

  constructor(readonly limits: WorkLimits) {}

  get rows(): number {
    return this.rowsRead + this.rowsWritten;
  }

  get bytes(): number {
    return this.bytesRead + this.bytesWritten;
  }

  chargeRead(rows: number, bytes: number): void {
    this.rowsRead += rows;
    this.bytesRead += bytes;
    this.check(0, 0);
  }

  chargeWrite(rows: number, bytes: number): void {
    this.rowsWritten += rows;
    this.bytesWritten += bytes;
    this.check(0, 0);
  }

  /** Refuses now if `rows`/`bytes` more would pass a limit, without charging them. */
  check(rows: number, bytes: number): void {
    if (this.rows + rows > this.limits.rows) throw exceeded("rows", this.limits.rows);
    if (this.bytes + bytes > this.limits.bytes) throw exceeded("bytes", this.limits.bytes);
  }
}

function exceeded(unit: "rows" | "bytes", limit: number) {
  const message =
    `The request needs more than ${limit} ${unit} of database work, the write budget ` +
    `(${LIMIT_VARIABLES[unit]}); split it into smaller requests.`;
  return invalidArgument(message, [{ field: "data", message: `Write budget: at most ${limit} ${unit}.` }]);
}

const budgets = new WeakMap<Kysely<Tables>, WorkBudget>();

/** `trx` with every statement charged to `budget` (a new handle on the same transaction). */
export function withBudget<D extends Kysely<Tables>>(trx: D, budget: WorkBudget): D {
  const charged = trx.withPlugin(new BudgetPlugin(budget)) as D;
  budgets.set(charged, budget);
  return charged;
}

/**
 * Refuses the request before costly work that will be charged later anyway: `rows` and
 * `bytes` are what the caller is about to read or write. A no-op outside a budgeted write.
 */
export function expectWork(trx: Readable, planned: { rows?: number; bytes?: number }): void {
  budgets.get(trx)?.check(planned.rows ?? 0, planned.bytes ?? 0);
}

/**
 * Charges a hand-written statement's parameters (raw.ts, which runs compiled text the
 * plugin cannot see before it runs); its result is charged by the plugin as any other.
 */
export function chargeStatement(db: Kysely<Tables>, text: string, params: readonly unknown[]): void {
  const budget = budgets.get(db);
  if (budget && WRITE_TEXT.test(text)) budget.chargeWrite(0, sizeOfAll(params));
}

const WRITE_TEXT = /^\s*(insert|update|delete|with|replace)\b/i;
const WRITE_NODES = new Set(["InsertQueryNode", "UpdateQueryNode", "DeleteQueryNode", "MergeQueryNode"]);

class BudgetPlugin implements KyselyPlugin {
  /** Writes seen before they ran, whose result rows (RETURNING) are the rows they wrote. */
  private readonly writes = new WeakSet<object>();

  constructor(private readonly budget: WorkBudget) {}

  /** A write's parameters are charged before it runs: a refused statement writes nothing. */
  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    if (
      WRITE_NODES.has(node.kind) ||
      (node.kind === "RawNode" && WRITE_TEXT.test(node.sqlFragments[0] ?? ""))
    ) {
      this.writes.add(queryId);
      this.budget.chargeWrite(0, valueBytes(node));
    }
    return node;
  }

  /**
   * Rows changed and rows returned. SQLite reports no change count for a statement with
   * RETURNING: then the rows a write returns are the rows it wrote.
   */
  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    let bytes = 0;
    for (const row of result.rows) for (const key in row) bytes += sizeOf(row[key]);
    const changed =
      result.numAffectedRows !== undefined
        ? Number(result.numAffectedRows)
        : this.writes.has(queryId)
          ? result.rows.length
          : 0;
    this.budget.chargeWrite(changed, 0);
    this.budget.chargeRead(result.rows.length, bytes);
    return result;
  }
}

/** Bytes of the values bound into a statement: every ValueNode and list of primitive values. */
function valueBytes(node: unknown): number {
  if (typeof node !== "object" || node === null) return 0;
  if (Array.isArray(node)) {
    let sum = 0;
    for (const child of node) sum += valueBytes(child);
    return sum;
  }
  const typed = node as { kind?: string; value?: unknown; values?: readonly unknown[] };
  if (typed.kind === "ValueNode") return sizeOf(typed.value);
  if (typed.kind === "PrimitiveValueListNode") return sizeOfAll(typed.values ?? []);
  let sum = 0;
  for (const key in typed) if (key !== "kind") sum += valueBytes((typed as Record<string, unknown>)[key]);
  return sum;
}

function sizeOfAll(values: readonly unknown[]): number {
  let sum = 0;
  for (const value of values) sum += sizeOf(value);
  return sum;
}

/** Storage bytes of one value: UTF-8 for text, 8 for a number, the length of binary data. */
function sizeOf(value: unknown): number {
  if (typeof value === "string") return Buffer.byteLength(value);
  if (typeof value === "number" || typeof value === "bigint") return 8;
  if (value instanceof Uint8Array) return value.byteLength;
  return 1;
}
