import { type Kysely, sql } from "kysely";
import { asWriteTx, type WriteTx } from "./handles.js";
import type { MonitorSlot } from "./monitor.js";
import { isStorageFault } from "./storage-faults.js";
import type { Tables } from "./tables.js";

type Db = Kysely<Tables>;
/** A write transaction's body: it receives the branded write handle (handles.ts). */
export type Work<T> = (trx: WriteTx) => Promise<T>;

interface Job {
  readonly work: Work<unknown>;
  /** About how many rows the work writes: what a batch is bounded by, besides jobs. */
  readonly rows: number;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

/** Jobs per batch at most. */
export const GROUP_COMMIT_MAX_JOBS = 256;
/**
 * Rows per batch at most: 256 concurrent 100-row adds ran as one 129 ms batch, the event
 * loop blocked for all of it; 2 000 rows take about 10 ms (RELIABILITY.md).
 */
export const GROUP_COMMIT_MAX_ROWS = 2000;

/**
 * The row count of a write whose size is not known up front (a delete by filter, a subtree
 * move): as large as a batch may be, so the write runs in a batch of its own.
 */
export const RUNS_ALONE = Number.POSITIVE_INFINITY;

export interface GroupCommitOptions {
  readonly maxJobs?: number;
  readonly maxRows?: number;
  readonly monitor?: MonitorSlot;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Group commit for SQLite (what the durable add target needs: docs/performance.md "Targets"): write transactions that arrive while the
 * event loop is busy share one database transaction and so one fsync. Each caller's
 * work runs inside its own savepoint, so a failing job is rolled back alone; every
 * caller is answered only after the shared COMMIT is durable.
 *
 * With `sync`, the COMMIT itself does not wait for the disk (`synchronous = NORMAL` for
 * that transaction) and `sync()` makes it durable off the event loop (WalSync). The next
 * batch is collected and committed while the previous one's sync is still running.
 */
export class GroupCommit {
  private queue: Job[] = [];
  private scheduled = false;
  /** Set by a failed sync: from then on nothing is committed or acknowledged (fail-stop). */
  private stopped: { error: unknown } | null = null;
  /** Commits made and jobs answered, for metrics and tests. */
  readonly stats = { commits: 0, jobs: 0 };
  private readonly maxJobs: number;
  private readonly maxRows: number;
  private readonly monitor: MonitorSlot | undefined;

  constructor(
    private readonly db: Db,
    private readonly sync: (() => Promise<void>) | null = null,
    options: GroupCommitOptions = {},
  ) {
    this.maxJobs = options.maxJobs ?? GROUP_COMMIT_MAX_JOBS;
    this.maxRows = options.maxRows ?? GROUP_COMMIT_MAX_ROWS;
    this.monitor = options.monitor;
  }

  /** Runs `work` in the next batch; `rows` (default 1) is about how many rows it writes. */
  run<T>(work: Work<T>, rows = 1): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.stopped) {
        reject(this.stopped.error);
        return;
      }
      this.queue.push({ work, rows, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the current I/O phase: every request parsed in it joins this batch.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    if (this.stopped) {
      for (const job of this.queue.splice(0)) job.reject(this.stopped.error);
      this.scheduled = false;
      return;
    }
    const batch = this.take();
    let outcomes: Outcome[];
    try {
      const started = performance.now();
      outcomes = await this.commit(batch);
      this.stats.commits += 1;
      this.stats.jobs += batch.length;
      this.monitor?.current.groupCommit?.(
        batch.length,
        batch.reduce((sum, job) => sum + (Number.isFinite(job.rows) ? job.rows : this.maxRows), 0),
        (performance.now() - started) / 1000,
      );
    } catch (error) {
      // The commit itself failed: nothing of the batch is durable, so nobody gets a success.
      for (const job of batch) job.reject(error);
      this.next();
      return;
    }
    this.next();
    try {
      await this.sync?.();
    } catch (error) {
      // Committed but not known to be on disk: not acknowledged, and neither is anything
      // after it (WalSync's fail-stop; docs/decisions.md).
      this.stopped = { error };
      for (const job of batch) job.reject(error);
      return;
    }
    batch.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }

  /**
   * The next batch: up to `maxJobs` jobs and `maxRows` rows (a first job larger than that
   * runs alone), so that one batch cannot hold the event loop for long.
   */
  private take(): Job[] {
    let rows = 0;
    let count = 0;
    for (const job of this.queue) {
      if (count === this.maxJobs || (count > 0 && rows + job.rows > this.maxRows)) break;
      rows += job.rows;
      count += 1;
    }
    return this.queue.splice(0, count);
  }

  private next(): void {
    if (this.queue.length > 0) setImmediate(() => void this.flush());
    else this.scheduled = false;
  }

  private commit(batch: readonly Job[]): Promise<Outcome[]> {
    const transaction = (trx: Db) => this.runJobs(trx, batch);
    return this.sync === null
      ? this.db.connection().execute((conn) => sqliteTransaction(conn, transaction))
      : transactionWithoutCommitSync(this.db, transaction);
  }

  private async runJobs(trx: Db, batch: readonly Job[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const job of batch) {
      await sql`savepoint job`.execute(trx);
      try {
        outcomes.push({ ok: true, value: await job.work(asWriteTx(trx)) });
        await sql`release job`.execute(trx);
      } catch (error) {
        // SQLite may have ended the whole transaction itself (SQLITE_FULL, I/O errors): nothing
        // of the batch can commit, so the batch fails with this cause rather than a savepoint error.
        if (isStorageFault(error)) throw error;
        await sql`rollback to job`.execute(trx);
        await sql`release job`.execute(trx);
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }
}

/**
 * A SQLite transaction whose COMMIT writes the WAL without waiting for the disk
 * (`synchronous = NORMAL` for that transaction, the connection's setting restored after).
 * Either the caller makes it durable itself (a group commit's WAL sync) or losing it to a
 * power cut is harmless (the webhook worker's bookkeeping).
 */
export function transactionWithoutCommitSync<T>(db: Db, work: Work<T>): Promise<T> {
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ synchronous: number }>`pragma synchronous`.execute(conn);
    const previous = Number(rows[0]?.synchronous ?? 2);
    await sql`pragma synchronous = NORMAL`.execute(conn);
    try {
      return await sqliteTransaction(conn, work);
    } finally {
      await sql.raw(`pragma synchronous = ${previous}`).execute(conn);
    }
  });
}

/**
 * BEGIN … COMMIT on one SQLite connection (`begin immediate` takes the write lock before
 * the first read). Unlike Kysely's transaction, a failed ROLLBACK does not replace the
 * error that caused it: on SQLITE_FULL and I/O errors SQLite has already rolled back by
 * itself, and "cannot rollback - no transaction is active" used to be all the log said
 * about a full disk.
 */
export async function sqliteTransaction<T>(
  conn: Db,
  work: Work<T>,
  begin: "begin" | "begin immediate" = "begin",
): Promise<T> {
  await sql.raw(begin).execute(conn);
  let result: T;
  try {
    result = await work(asWriteTx(conn));
    await sql`commit`.execute(conn);
  } catch (error) {
    try {
      await sql`rollback`.execute(conn);
    } catch (rollbackError) {
      if (!/no transaction is active/.test(String((rollbackError as Error).message))) {
        throw new AggregateError(
          [error, rollbackError],
          "A transaction failed and could not be rolled back.",
        );
      }
    }
    throw error;
  }
  return result;
}
