import type { WriteTx } from "../db/handles.js";

/** A keyset position inside a task's walk; null: from the start. */
export type Position = readonly (string | number)[] | null;

export interface StepResult {
  /** Rows deleted or rewritten by this batch. */
  readonly done: number;
  /** Where the next batch starts; null when the task is done. */
  readonly next: Position;
}

/** What one batch of a task works on. */
export interface TaskScope {
  readonly workspaceId: string;
  readonly jobId: string;
  /** The task's subject as its job type wrote it (JSON). */
  readonly subject: unknown;
  readonly now: number;
  /** The key of sealed values (Keys.atRest), for tasks that rewrite them (stored Idempotency-Key answers). */
  readonly atRest: Buffer;
}

/**
 * A kind of durable job (erasure, delete; later location rewrites, document migration).
 * The runner (worker.ts) claims a job, then runs its tasks in order, one bounded batch per
 * short write transaction, committing the task's position with the batch's work. So each
 * batch must do at most `batch` rows of work and be idempotent: a batch re-run after a
 * crash finds its rows gone or rewritten.
 */
export interface JobType {
  /** Stable: stored in jobs.type. */
  readonly name: string;
  /** One batch of the task `kind`; a kind this version does not know has nothing left to do. */
  runBatch(tx: WriteTx, kind: string, scope: TaskScope, after: Position, batch: number): Promise<StepResult>;
  /**
   * Deleted, not kept as completed, once done: a job no one reads the status of (a
   * notification's fan-out), whose rows would otherwise count against the workspace's quota.
   */
  readonly forgetWhenDone?: boolean;
  /** In the transaction that completes the job's last task. */
  finish?(
    tx: WriteTx,
    job: { readonly workspaceId: string; readonly id: string },
    now: number,
  ): Promise<void>;
}

/** A task as a job type creates it. */
export interface NewTask {
  readonly kind: string;
  readonly subject: unknown;
}
