import type { Kysely } from "kysely";
import type { Readable, WriteTx } from "../db/handles.js";
import type { JobTaskRow, Tables } from "../db/tables.js";
import { claimedForUpdate, lockedForUpdate } from "../db/transactions.js";
import type { NewTask, Position } from "./types.js";

/** Writes a job of `type` and its tasks, in the request's transaction. Returns the task count. */
export async function createJob(
  trx: WriteTx,
  job: {
    readonly workspaceId: string;
    readonly id: string;
    readonly type: string;
    readonly tasks: readonly NewTask[];
    readonly now: number;
  },
): Promise<number> {
  const tasks: JobTaskRow[] = job.tasks.map((task, seq) => ({
    workspace_id: job.workspaceId,
    job_id: job.id,
    seq,
    kind: task.kind,
    subject: JSON.stringify(task.subject),
    cursor: null,
    done: 0,
    completed_at: null,
  }));
  await trx
    .insertInto("jobs")
    .values({
      workspace_id: job.workspaceId,
      id: job.id,
      type: job.type,
      tasks_count: tasks.length,
      tasks_left: tasks.length,
      batches: 0,
      created_at: job.now,
      last_task_completed_at: null,
      completed_at: tasks.length === 0 ? job.now : null,
      claim: null,
      lease_until: null,
    })
    .execute();
  if (tasks.length > 0) await trx.insertInto("job_tasks").values(tasks).execute();
  return tasks.length;
}

export interface JobStatus {
  readonly isDeleteCompleted: boolean;
  readonly tasksLeft: number;
  readonly lastTaskCompletedTime: number | null;
  /** Batches committed so far (each at most the configured batch of rows). */
  readonly batches: number;
  /** Rows deleted or rewritten so far. */
  readonly done: number;
}

/** A job of the workspace and type, or null (another workspace's or type's job is not seen). */
export async function readJob(
  db: Readable,
  workspaceId: string,
  type: string,
  id: string,
): Promise<JobStatus | null> {
  const row = await db
    .selectFrom("jobs")
    .select(["tasks_left", "completed_at", "last_task_completed_at", "batches"])
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", id)
    .where("type", "=", type)
    .executeTakeFirst();
  if (!row) return null;
  const done = await db
    .selectFrom("job_tasks")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("done"), eb.lit(0)).as("done"))
    .where("workspace_id", "=", workspaceId)
    .where("job_id", "=", id)
    .executeTakeFirstOrThrow();
  return {
    isDeleteCompleted: row.completed_at !== null,
    tasksLeft: Number(row.tasks_left),
    lastTaskCompletedTime: row.last_task_completed_at === null ? null : Number(row.last_task_completed_at),
    batches: Number(row.batches),
    done: Number(done.done),
  };
}

/**
 * Whether any job is unfinished: one read, so an idle process's polls never open a write
 * transaction (on SQLite every write commit costs a WAL sync).
 */
export async function hasOpenJob(db: Readable): Promise<boolean> {
  const row = await db
    .selectFrom("jobs")
    .select("id")
    .where("completed_at", "is", null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface ClaimedJob {
  readonly workspaceId: string;
  readonly id: string;
  readonly type: string;
  readonly claim: string;
}

/**
 * Claims the oldest unfinished job no live claim holds (its lease ran out, or it never had
 * one): on PostgreSQL `FOR UPDATE SKIP LOCKED`, so concurrent processes claim different
 * jobs, and the lease then keeps others off it while it runs.
 */
export async function claimJob(
  db: Kysely<Tables>,
  claim: string,
  now: number,
  leaseMs: number,
): Promise<ClaimedJob | null> {
  const row = await claimedForUpdate(
    db,
    db
      .selectFrom("jobs")
      .select(["workspace_id", "id", "type"])
      .where("completed_at", "is", null)
      .where((eb) =>
        eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now), eb("claim", "=", claim)]),
      )
      .orderBy("created_at")
      .limit(1),
  ).executeTakeFirst();
  if (!row) return null;
  await db
    .updateTable("jobs")
    .set({ claim, lease_until: now + leaseMs })
    .where("workspace_id", "=", row.workspace_id)
    .where("id", "=", row.id)
    .execute();
  return { workspaceId: row.workspace_id, id: row.id, type: row.type, claim };
}

export interface OpenTask {
  readonly seq: number;
  readonly kind: string;
  readonly subject: unknown;
  readonly cursor: Position;
}

/**
 * The job's next open task, if the claim is still ours (read under the job's row lock, so
 * a process whose lease ran out and was taken over stops at its next batch). null with
 * `lost` when the claim is gone; null without when every task is done.
 */
export async function nextTask(
  trx: Kysely<Tables>,
  job: ClaimedJob,
  now: number,
  leaseMs: number,
): Promise<{ task: OpenTask | null; lost: boolean }> {
  const held = await lockedForUpdate(
    trx,
    trx
      .selectFrom("jobs")
      .select(["claim", "completed_at"])
      .where("workspace_id", "=", job.workspaceId)
      .where("id", "=", job.id),
  ).executeTakeFirst();
  if (!held || held.claim !== job.claim || held.completed_at !== null) return { task: null, lost: true };
  await trx
    .updateTable("jobs")
    .set((eb) => ({ lease_until: now + leaseMs, batches: eb("batches", "+", 1) }))
    .where("workspace_id", "=", job.workspaceId)
    .where("id", "=", job.id)
    .execute();
  const row = await trx
    .selectFrom("job_tasks")
    .select(["seq", "kind", "subject", "cursor"])
    .where("workspace_id", "=", job.workspaceId)
    .where("job_id", "=", job.id)
    .where("completed_at", "is", null)
    .orderBy("seq")
    .limit(1)
    .executeTakeFirst();
  if (!row) return { task: null, lost: false };
  return {
    task: {
      seq: Number(row.seq),
      kind: row.kind,
      subject: row.subject === null ? null : JSON.parse(row.subject),
      cursor: row.cursor === null ? null : (JSON.parse(row.cursor) as Position),
    },
    lost: false,
  };
}

/**
 * Records a batch: the task's new position, or its completion (its subject emptied, so a
 * finished erasure holds no user id) and the job's. Returns whether the job is now complete.
 */
export async function recordBatch(
  trx: Kysely<Tables>,
  job: ClaimedJob,
  seq: number,
  done: number,
  next: Position,
  now: number,
): Promise<boolean> {
  const task = trx
    .updateTable("job_tasks")
    .where("workspace_id", "=", job.workspaceId)
    .where("job_id", "=", job.id)
    .where("seq", "=", seq);
  if (next !== null) {
    await task.set((eb) => ({ cursor: JSON.stringify(next), done: eb("done", "+", done) })).execute();
    return false;
  }
  await task
    .set((eb) => ({ cursor: null, subject: null, completed_at: now, done: eb("done", "+", done) }))
    .execute();
  const left = await trx
    .updateTable("jobs")
    .set((eb) => ({ tasks_left: eb("tasks_left", "-", 1), last_task_completed_at: now }))
    .where("workspace_id", "=", job.workspaceId)
    .where("id", "=", job.id)
    .returning("tasks_left")
    .executeTakeFirstOrThrow();
  return Number(left.tasks_left) === 0;
}

/** Deletes a finished job and its tasks, for a type that keeps no status (`forgetWhenDone`). */
export async function forgetJob(trx: Kysely<Tables>, workspaceId: string, id: string): Promise<void> {
  await trx
    .deleteFrom("job_tasks")
    .where("workspace_id", "=", workspaceId)
    .where("job_id", "=", id)
    .execute();
  await trx.deleteFrom("jobs").where("workspace_id", "=", workspaceId).where("id", "=", id).execute();
}

export async function finishJob(trx: Kysely<Tables>, job: ClaimedJob, now: number): Promise<void> {
  await trx
    .updateTable("jobs")
    .set({ completed_at: now, claim: null, lease_until: null })
    .where("workspace_id", "=", job.workspaceId)
    .where("id", "=", job.id)
    .execute();
}
