import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { Readable, WriteTx } from "../db/handles.js";
import type { PrivacyTaskRow, Tables } from "../db/tables.js";
import { claimedForUpdate, lockedForUpdate } from "../db/transactions.js";
import type { Position } from "./kind.js";
import { PERSONAL_DATA_KINDS } from "./registry.js";

/** Writes a job and its tasks (one per user and kind), in the request's transaction. Returns the task count. */
export async function createJob(
  trx: WriteTx,
  job: {
    readonly workspaceId: string;
    readonly id: string;
    readonly userIds: readonly string[];
    readonly organizationIds: readonly string[] | null;
    readonly now: number;
  },
): Promise<number> {
  const tasks: PrivacyTaskRow[] = [];
  for (const userId of job.userIds) {
    for (const kind of PERSONAL_DATA_KINDS) {
      if (!kind.erase) continue;
      tasks.push({
        workspace_id: job.workspaceId,
        job_id: job.id,
        seq: tasks.length,
        kind: kind.name,
        user_id: userId,
        organization_ids: job.organizationIds ? JSON.stringify(job.organizationIds) : null,
        cursor: null,
        erased: 0,
        completed_at: null,
      });
    }
  }
  await trx
    .insertInto("privacy_jobs")
    .values({
      workspace_id: job.workspaceId,
      id: job.id,
      tasks_count: tasks.length,
      tasks_left: tasks.length,
      created_at: job.now,
      last_task_completed_at: null,
      completed_at: null,
      claim: null,
      lease_until: null,
    })
    .execute();
  await trx.insertInto("privacy_tasks").values(tasks).execute();
  return tasks.length;
}

export interface JobStatus {
  readonly isDeleteCompleted: boolean;
  readonly tasksLeft: number;
  readonly lastTaskCompletedTime: number | null;
}

/** A job of the workspace, or null (another workspace's job is not seen). */
export async function readJob(db: Readable, workspaceId: string, id: string): Promise<JobStatus | null> {
  const row = await db
    .selectFrom("privacy_jobs")
    .select(["tasks_left", "completed_at", "last_task_completed_at"])
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) return null;
  return {
    isDeleteCompleted: row.completed_at !== null,
    tasksLeft: Number(row.tasks_left),
    lastTaskCompletedTime: row.last_task_completed_at === null ? null : Number(row.last_task_completed_at),
  };
}

export interface ClaimedJob {
  readonly workspaceId: string;
  readonly id: string;
  readonly claim: string;
}

/**
 * Claims the oldest unfinished job no live claim holds (its lease ran out, or it never had
 * one): on PostgreSQL `FOR UPDATE SKIP LOCKED`, so concurrent processes claim different
 * jobs, and the lease then keeps others off it while it runs.
 */
/**
 * Whether any job is unfinished: one read, so an idle process's polls never open a write
 * transaction (on SQLite every write commit costs a WAL sync).
 */
export async function hasOpenJob(db: Readable): Promise<boolean> {
  const row = await db
    .selectFrom("privacy_jobs")
    .select("id")
    .where("completed_at", "is", null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export async function claimJob(
  db: Kysely<Tables>,
  claim: string,
  now: number,
  leaseMs: number,
): Promise<ClaimedJob | null> {
  const row = await claimedForUpdate(
    db,
    db
      .selectFrom("privacy_jobs")
      .select(["workspace_id", "id"])
      .where("completed_at", "is", null)
      .where((eb) =>
        eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now), eb("claim", "=", claim)]),
      )
      .orderBy("created_at")
      .limit(1),
  ).executeTakeFirst();
  if (!row) return null;
  await db
    .updateTable("privacy_jobs")
    .set({ claim, lease_until: now + leaseMs })
    .where("workspace_id", "=", row.workspace_id)
    .where("id", "=", row.id)
    .execute();
  return { workspaceId: row.workspace_id, id: row.id, claim };
}

export interface OpenTask {
  readonly seq: number;
  readonly kind: string;
  readonly userId: string;
  readonly organizationIds: readonly string[] | null;
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
      .selectFrom("privacy_jobs")
      .select(["claim", "completed_at"])
      .where("workspace_id", "=", job.workspaceId)
      .where("id", "=", job.id),
  ).executeTakeFirst();
  if (!held || held.claim !== job.claim || held.completed_at !== null) return { task: null, lost: true };
  await trx
    .updateTable("privacy_jobs")
    .set({ lease_until: now + leaseMs })
    .where("workspace_id", "=", job.workspaceId)
    .where("id", "=", job.id)
    .execute();
  const row = await trx
    .selectFrom("privacy_tasks")
    .select(["seq", "kind", "user_id", "organization_ids", "cursor"])
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
      userId: row.user_id ?? "",
      organizationIds: row.organization_ids === null ? null : (JSON.parse(row.organization_ids) as string[]),
      cursor: row.cursor === null ? null : (JSON.parse(row.cursor) as Position),
    },
    lost: false,
  };
}

/** Records a batch: the task's new position, or its completion (its user id emptied) and the job's. */
export async function recordBatch(
  trx: Kysely<Tables>,
  job: ClaimedJob,
  seq: number,
  erased: number,
  next: Position,
  now: number,
): Promise<void> {
  const task = trx
    .updateTable("privacy_tasks")
    .where("workspace_id", "=", job.workspaceId)
    .where("job_id", "=", job.id)
    .where("seq", "=", seq);
  if (next !== null) {
    await task.set((eb) => ({ cursor: JSON.stringify(next), erased: eb("erased", "+", erased) })).execute();
    return;
  }
  await task
    .set((eb) => ({ cursor: null, user_id: null, completed_at: now, erased: eb("erased", "+", erased) }))
    .execute();
  const left = await trx
    .updateTable("privacy_jobs")
    .set((eb) => ({ tasks_left: eb("tasks_left", "-", 1), last_task_completed_at: now }))
    .where("workspace_id", "=", job.workspaceId)
    .where("id", "=", job.id)
    .returning("tasks_left")
    .executeTakeFirstOrThrow();
  if (Number(left.tasks_left) === 0) await finishJob(trx, job, now);
}

export async function finishJob(trx: Kysely<Tables>, job: ClaimedJob, now: number): Promise<void> {
  await trx
    .updateTable("privacy_jobs")
    .set({ completed_at: now, claim: null, lease_until: null })
    .where("workspace_id", "=", job.workspaceId)
    .where("id", "=", job.id)
    .execute();
}

/**
 * The id that replaces a user in the records a job keeps: derived from the job and the
 * user, so every batch (and a resumed run) writes the same one, and holding no user data.
 */
export function pseudonymFor(jobId: string, userId: string): string {
  return `erased-${createHash("sha256").update(`${jobId}\u0000${userId}`).digest("hex").slice(0, 16)}`;
}
