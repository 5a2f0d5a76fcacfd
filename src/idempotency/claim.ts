import { type Ctx, derivedCtx } from "../context.js";
import type { WriteTx } from "../db/handles.js";
import type { Outcome } from "../http/operation.js";
import { checkGrowth, markUsage } from "../quotas/check.js";
import { type IdempotentRequest, inProgress } from "./keys.js";
import { sealAnswer } from "./sealed-answers.js";

/**
 * Runs a keyed request (docs/decisions.md "Idempotency-Key") so that its writes, its key
 * and its answer commit in ONE transaction: the first `ctx.write` opens it and claims the
 * key, every later write of the request joins it, and it commits only once `handle` has
 * answered, with that answer stored. A crash at any point leaves either everything (the
 * writes, the key, the answer) or nothing, so a retry gets the answer or runs again.
 * A request that wrote nothing stores no key. Jobs the request kicks are kicked after the
 * commit: the base context defers a kick made inside its open write (context.ts).
 */
export async function runClaimingKey(
  ctx: Ctx,
  request: IdempotentRequest,
  statusCode: number,
  handle: (ctx: Ctx) => Promise<Outcome>,
): Promise<Outcome> {
  const keyed = new KeyedWrites(ctx, request, statusCode);
  let outcome: Outcome;
  try {
    outcome = await handle(keyed.ctx);
  } catch (error) {
    await keyed.abandon(error);
    throw error;
  }
  return keyed.finish(outcome);
}

class KeyedWrites {
  readonly ctx: Ctx;
  /** The transaction once its first write ran; `committed` settles when it ends. */
  private open: WriteTx | null = null;
  private committed: Promise<void> | null = null;
  /** A write that failed inside the open transaction: the request fails whole. */
  private failed: { error: unknown } | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly answer = deferred<Outcome>();

  constructor(
    private readonly base: Ctx,
    private readonly request: IdempotentRequest,
    private readonly statusCode: number,
  ) {
    this.ctx = derivedCtx(base, { write: (work, rows) => this.write(work, rows) });
  }

  /** Writes run one after another: in the open transaction, or opening it. */
  private write<T>(work: (trx: WriteTx) => Promise<T>, rows?: number): Promise<T> {
    const run = this.queue.then(() => (this.open ? this.joined(this.open, work) : this.begin(work, rows)));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async joined<T>(trx: WriteTx, work: (trx: WriteTx) => Promise<T>): Promise<T> {
    try {
      return await work(trx);
    } catch (error) {
      // It cannot roll back alone inside the shared transaction (PostgreSQL aborts it).
      this.failed ??= { error };
      throw error;
    }
  }

  private begin<T>(work: (trx: WriteTx) => Promise<T>, rows?: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let opened = false;
      const committed = this.base.write(async (trx) => {
        const mark = await markUsage(trx, this.base);
        await claim(trx, this.base, this.request);
        const value = await work(trx);
        opened = true;
        this.open = trx;
        resolve(value);
        const outcome = await this.answer.promise;
        await trx
          .updateTable("idempotency_keys")
          .set({
            status_code: this.statusCode,
            answer: sealAnswer(this.base.keys.atRest, this.base.workspace.id, this.request.key, outcome),
          })
          .where("workspace_id", "=", this.base.workspace.id)
          .where("key", "=", this.request.key)
          .execute();
        // The key and its answer are stored data: counted, and refused past a quota unless the request freed as much.
        await checkGrowth(trx, this.base, mark);
      }, rows);
      this.committed = committed;
      committed.catch((error: unknown) => {
        if (opened) return;
        // Rolled back before the request went on: nothing is open, a later write starts afresh.
        this.committed = null;
        reject(error);
      });
    });
  }

  async abandon(error: unknown): Promise<void> {
    if (this.committed === null) return;
    this.answer.reject(error);
    await this.committed.catch(() => undefined);
  }

  async finish(outcome: Outcome): Promise<Outcome> {
    if (this.failed) {
      await this.abandon(this.failed.error);
      throw this.failed.error;
    }
    if (this.committed !== null) {
      this.answer.resolve(outcome);
      await this.committed;
    }
    return outcome;
  }
}

async function claim(trx: WriteTx, ctx: Ctx, request: IdempotentRequest): Promise<void> {
  // PostgreSQL: a concurrent claim of the key waits for the first transaction, then inserts nothing.
  const inserted = await trx
    .insertInto("idempotency_keys")
    .values({
      workspace_id: ctx.workspace.id,
      key: request.key,
      fingerprint: request.fingerprint,
      created_at: ctx.clock.now(),
      status_code: null,
      // Never null (the usage triggers count its bytes); the answer replaces it before the commit.
      answer: "",
    })
    .onConflict((oc) => oc.columns(["workspace_id", "key"]).doNothing())
    .returning("key")
    .execute();
  if (inserted.length === 0) throw inProgress();
}

function deferred<T>(): { promise: Promise<T>; resolve(value: T): void; reject(reason: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Rejected only to end a transaction that waits on it; the caller has the error already.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
