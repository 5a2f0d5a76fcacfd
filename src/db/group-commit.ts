import { type Kysely, sql } from "kysely";
import { UNBOUNDED, WorkBudget, withBudget } from "./budget.js";
import { FairQueue } from "./fair-queue.js";
import { asWriteTx, type WriteTx } from "./handles.js";
import type { MonitorSlot } from "./monitor.js";
import { isStorageFault } from "./storage-faults.js";
import type { Tables } from "./tables.js";

type Db = Kysely<Tables>;
/** A write transaction's body: it receives the branded write handle (handles.ts). */
export type Work<T> = (trx: WriteTx) => Promise<T>;

interface Job {
  readonly work: Work<unknown>;
  /** What the job's statements are charged to: its rows and bytes written bound the batch. */
  readonly budget: WorkBudget;
  readonly alone: boolean;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: unknown) => void;
}

/** How a write is run: the request's work budget, and whether it asks for a batch of its own. */
export interface WriteOptions {
  /** Every statement is charged here; past its limits the write fails (budget.ts). Default: counted only. */
  readonly budget?: WorkBudget;
  /** A write of unknown size (a cascade): no other job waits for its commit in the same batch. */
  readonly alone?: boolean;
  /**
   * Whose write it is (a workspace id): batches take jobs round robin across shares, so one
   * workspace's burst does not queue another's writes behind it. Default: one shared lane.
   */
  readonly share?: string;
}

/** Jobs per batch at most. */
export const GROUP_COMMIT_MAX_JOBS = 256;
/**
 * Rows written per batch: once the jobs run so far wrote this many, the batch commits.
 * 256 concurrent 100-row adds ran as one 129 ms batch, the event loop blocked for all of
 * it; 2 000 rows take about 10 ms (RELIABILITY.md).
 */
export const GROUP_COMMIT_MAX_ROWS = 2000;
/** Bytes written per batch, likewise: a few large records fill a batch as many small rows do. */
export const GROUP_COMMIT_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Time the jobs of one batch may run before it commits, whatever they wrote: rows differ in
 * cost (an inbox row lands on pages of three indexes keyed by user, about 1.6 times an
 * activity's cost in the writer: RELIABILITY.md "Work budgets"), and a loaded host makes every
 * row slower. A transaction passes it by at most the last job's own work (that job's budget).
 */
export const GROUP_COMMIT_MAX_MS = 50;

/** The hint of a write whose size is not known up front (a delete by filter, a subtree move): it runs alone. */
export const RUNS_ALONE = Number.POSITIVE_INFINITY;

export interface GroupCommitOptions {
  readonly maxJobs?: number;
  readonly maxRows?: number;
  readonly maxBytes?: number;
  readonly maxMs?: number;
  /** Milliseconds, for the batch's time bound (tests inject one). */
  readonly now?: () => number;
  readonly monitor?: MonitorSlot;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** What a batch has done so far. */
interface BatchWork {
  readonly jobs: Job[];
  rows: number;
  bytes: number;
  /** When its first job started (`now`). */
  startedAt: number;
}

/**
 * Group commit for SQLite (what the durable add target needs: docs/performance.md "Targets"): write transactions that arrive while the
 * event loop is busy share one database transaction and so one fsync. Each caller's
 * work runs inside its own savepoint, so a failing job is rolled back alone; every
 * caller is answered only after the shared COMMIT is durable.
 *
 * A batch is bounded by the work its jobs really did, not by what they announced: jobs
 * join it one after another until `maxJobs` ran, the rows or bytes they wrote (their
 * budgets count every statement, fan-out included) reach `maxRows`/`maxBytes`, or they
 * have run `maxMs`. A job can pass the bound by at most its own work.
 *
 * With `sync`, the COMMIT itself does not wait for the disk (`synchronous = NORMAL` for
 * that transaction) and `sync()` makes it durable off the event loop (WalSync). The next
 * batch is collected and committed while the previous one's sync is still running.
 */
export class GroupCommit {
  private readonly queue = new FairQueue<Job>();
  private scheduled = false;
  /** Set by a failed sync: from then on nothing is committed or acknowledged (fail-stop). */
  private stopped: { error: unknown } | null = null;
  /** Commits made and jobs answered, for metrics and tests. */
  readonly stats = { commits: 0, jobs: 0 };
  private readonly maxJobs: number;
  private readonly maxRows: number;
  private readonly maxBytes: number;
  private readonly maxMs: number;
  private readonly now: () => number;
  private readonly monitor: MonitorSlot | undefined;

  constructor(
    private readonly db: Db,
    private readonly sync: (() => Promise<void>) | null = null,
    options: GroupCommitOptions = {},
  ) {
    this.maxJobs = options.maxJobs ?? GROUP_COMMIT_MAX_JOBS;
    this.maxRows = options.maxRows ?? GROUP_COMMIT_MAX_ROWS;
    this.maxBytes = options.maxBytes ?? GROUP_COMMIT_MAX_BYTES;
    this.maxMs = options.maxMs ?? GROUP_COMMIT_MAX_MS;
    this.now = options.now ?? (() => performance.now());
    this.monitor = options.monitor;
  }

  /** Runs `work` in the next batch that has room, charged to `options.budget`. */
  run<T>(work: Work<T>, options: WriteOptions = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.stopped) {
        reject(this.stopped.error);
        return;
      }
      this.queue.push(options.share ?? "", {
        work,
        budget: options.budget ?? new WorkBudget(UNBOUNDED),
        alone: options.alone === true,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      if (!this.scheduled) {
        this.scheduled = true;
        // After the current I/O phase: every request parsed in it joins this batch.
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    if (this.stopped) {
      for (const job of this.queue.drain()) job.reject(this.stopped.error);
      this.scheduled = false;
      return;
    }
    const batch: BatchWork = { jobs: [], rows: 0, bytes: 0, startedAt: 0 };
    let outcomes: Outcome[];
    try {
      const started = performance.now();
      outcomes = await this.commit(batch);
      this.stats.commits += 1;
      this.stats.jobs += batch.jobs.length;
      this.monitor?.current.groupCommit?.(
        batch.jobs.length,
        batch.rows,
        (performance.now() - started) / 1000,
      );
    } catch (error) {
      // The commit itself failed: nothing of the batch is durable, so nobody gets a success.
      for (const job of batch.jobs) job.reject(error);
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
      for (const job of batch.jobs) job.reject(error);
      return;
    }
    batch.jobs.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }

  /** Whether the batch may take `job` next: room left, and a job that runs alone only first. */
  private admits(batch: BatchWork, job: Job): boolean {
    if (batch.jobs.length === 0) return true;
    if (job.alone || batch.jobs.at(-1)!.alone) return false;
    return (
      batch.jobs.length < this.maxJobs &&
      batch.rows < this.maxRows &&
      batch.bytes < this.maxBytes &&
      this.now() - batch.startedAt < this.maxMs
    );
  }

  private next(): void {
    if (this.queue.length > 0) setImmediate(() => void this.flush());
    else this.scheduled = false;
  }

  private commit(batch: BatchWork): Promise<Outcome[]> {
    const transaction = (trx: Db) => this.runJobs(trx, batch);
    return this.sync === null
      ? this.db.connection().execute((conn) => sqliteTransaction(conn, transaction))
      : transactionWithoutCommitSync(this.db, transaction);
  }

  /**
   * Takes jobs from the queue while the batch has room, each in its own savepoint; the
   * queue hands them out round robin across workspaces (FairQueue).
   */
  private async runJobs(trx: Db, batch: BatchWork): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    batch.startedAt = this.now();
    while (this.queue.length > 0 && this.admits(batch, this.queue.peek()!)) {
      const job = this.queue.shift()!;
      batch.jobs.push(job);
      const { rowsWritten, bytesWritten } = job.budget;
      await sql`savepoint job`.execute(trx);
      try {
        outcomes.push({ ok: true, value: await job.work(withBudget(asWriteTx(trx), job.budget)) });
        await sql`release job`.execute(trx);
      } catch (error) {
        // SQLite may have ended the whole transaction itself (SQLITE_FULL, I/O errors): nothing
        // of the batch can commit, so the batch fails with this cause rather than a savepoint error.
        if (isStorageFault(error)) throw error;
        await sql`rollback to job`.execute(trx);
        await sql`release job`.execute(trx);
        outcomes.push({ ok: false, error });
      }
      // A job rolled back still held the writer for what it did.
      batch.rows += job.budget.rowsWritten - rowsWritten;
      batch.bytes += job.budget.bytesWritten - bytesWritten;
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
