import { createHash } from "node:crypto";
import type { WriteTx } from "../db/handles.js";
import { createJob } from "../jobs/store.js";
import type { JobType, NewTask } from "../jobs/types.js";
import { markErasing, unmarkErasing } from "./erasing.js";
import { kindNamed, PERSONAL_DATA_KINDS } from "./registry.js";
import { typedValues } from "./typed.js";

/** The durable-job type of user-data erasure (src/jobs): one task per (user, kind of personal data). */
export const ERASURE = "erasure";

/** What an erasure task works on: stored as the task's subject, emptied when it completes. */
interface ErasureSubject {
  readonly userId: string;
  /** null: every organization of the workspace. */
  readonly organizationIds: readonly string[] | null;
  /** Their name and e-mail as stored (typed.ts); absent in tasks of older versions. */
  readonly typed?: readonly string[];
}

/**
 * Writes an erasure job and its tasks, in the request's transaction, and lists its users as
 * being erased (erasing.ts): from the commit on, writes naming them are refused until the
 * job completes, so one pass of each kind finds every copy (docs/privacy.md "Erasure").
 * Returns the task count.
 */
export async function createErasureJob(
  trx: WriteTx,
  job: {
    readonly workspaceId: string;
    readonly id: string;
    readonly userIds: readonly string[];
    readonly organizationIds: readonly string[] | null;
    readonly now: number;
  },
): Promise<number> {
  await markErasing(trx, job);
  const tasks: NewTask[] = [];
  for (const userId of job.userIds) {
    const typed = await typedValues(trx, job.workspaceId, userId);
    for (const kind of PERSONAL_DATA_KINDS) {
      if (!kind.erase) continue;
      const subject: ErasureSubject = { userId, organizationIds: job.organizationIds, typed };
      tasks.push({ kind: kind.name, subject });
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
        typed: subject.typed ?? [],
        now: scope.now,
        atRest: scope.atRest,
      },
      after,
      batch,
    );
    return { done: result.erased, next: result.next };
  },
  async finish(tx, job) {
    await unmarkErasing(tx, job.workspaceId, job.id);
  },
};

/**
 * The id that replaces a user in the records a job keeps: derived from the job and the
 * user, so every batch (and a resumed run) writes the same one, and holding no user data.
 */
export function pseudonymFor(jobId: string, userId: string): string {
  return `erased-${createHash("sha256").update(`${jobId}\u0000${userId}`).digest("hex").slice(0, 16)}`;
}
