import { createHash } from "node:crypto";
import type { WriteTx } from "../db/handles.js";
import { createJob } from "../jobs/store.js";
import type { JobType, NewTask } from "../jobs/types.js";
import { kindNamed, PERSONAL_DATA_KINDS } from "./registry.js";

/** The durable-job type of user-data erasure (src/jobs): one task per (user, kind of personal data). */
export const ERASURE = "erasure";

/** What an erasure task works on: stored as the task's subject, emptied when it completes. */
interface ErasureSubject {
  readonly userId: string;
  /** null: every organization of the workspace. */
  readonly organizationIds: readonly string[] | null;
}

/**
 * Rounds of an erasure: every kind runs once per user, then once more, so what was written
 * naming the user while the first round ran (after its scan had passed) is found by the
 * second (docs/privacy.md "Erasure"). What is written during the second round's own scan
 * can still escape; a later erasure of the same user finds it.
 */
export const ERASURE_ROUNDS = 2;

/** Writes an erasure job and its tasks, in the request's transaction. Returns the task count. */
export function createErasureJob(
  trx: WriteTx,
  job: {
    readonly workspaceId: string;
    readonly id: string;
    readonly userIds: readonly string[];
    readonly organizationIds: readonly string[] | null;
    readonly now: number;
  },
): Promise<number> {
  const tasks: NewTask[] = [];
  for (let round = 0; round < ERASURE_ROUNDS; round++) {
    for (const userId of job.userIds) {
      for (const kind of PERSONAL_DATA_KINDS) {
        if (!kind.erase) continue;
        const subject: ErasureSubject = { userId, organizationIds: job.organizationIds };
        tasks.push({ kind: kind.name, subject });
      }
    }
  }
  return createJob(trx, { workspaceId: job.workspaceId, id: job.id, type: ERASURE, tasks, now: job.now });
}

/** Runs each task by its personal-data kind (registry.ts); a kind this version does not know has nothing to erase. */
export const erasureJob: JobType = {
  name: ERASURE,
  async runBatch(tx, kindName, scope, after, batch) {
    const kind = kindNamed(kindName);
    const subject = scope.subject as ErasureSubject | null;
    if (!kind?.erase || subject === null) return { done: 0, next: null };
    const result = await kind.erase(
      tx,
      {
        workspaceId: scope.workspaceId,
        userId: subject.userId,
        organizationIds: subject.organizationIds,
        pseudonym: pseudonymFor(scope.jobId, subject.userId),
        now: scope.now,
      },
      after,
      batch,
    );
    return { done: result.erased, next: result.next };
  },
};

/**
 * The id that replaces a user in the records a job keeps: derived from the job and the
 * user, so every batch (and a resumed run) writes the same one, and holding no user data.
 */
export function pseudonymFor(jobId: string, userId: string): string {
  return `erased-${createHash("sha256").update(`${jobId}\u0000${userId}`).digest("hex").slice(0, 16)}`;
}
