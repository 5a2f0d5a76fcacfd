import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import { createJob } from "../../jobs/store.js";
import type { JobType } from "../../jobs/types.js";
import { DOCUMENT_STEPS, ORGANIZATION_STEPS, type SweepTarget, stepNamed } from "./cascade.js";
import { bury, unbury } from "./tombstones.js";

/** The durable-job type of organization and document deletes (src/jobs). */
export const DELETE = "delete";

/** What a delete task sweeps: stored as the task's subject. */
interface SweepSubject {
  readonly organizationId: string;
  /** null: the whole organization. */
  readonly documentIds: readonly string[] | null;
}

/**
 * Deletes what an organization (documentIds null) or some documents held, in the delete's
 * transaction, once their records are gone: as much as one job batch allows
 * (COLLABD_ERASURE_BATCH_ROWS rows) right here, so a small delete is complete when it is
 * answered, as before; what does not fit goes to a delete job (`startSweep`). Returns the
 * job's id, or null when nothing was left for one; the caller kicks the runner once its
 * transaction is durable (`ctx.jobs.kick()`).
 */
export async function deleteOrSweep(
  trx: WriteTx,
  ctx: Ctx,
  target: Omit<SweepTarget, "workspaceId" | "now">,
): Promise<string | null> {
  const t = { ...target, workspaceId: ctx.workspace.id, now: ctx.clock.now() };
  let budget = ctx.config.erasureBatchRows;
  for (const step of t.documentIds ? DOCUMENT_STEPS : ORGANIZATION_STEPS) {
    for (;;) {
      if (budget === 0) return startSweep(trx, ctx, target);
      const asked = budget;
      budget -= await step.run(trx, t, asked);
      if (budget > 0) break;
    }
  }
  return null;
}

/**
 * Starts sweeping what an organization or some documents held: buries their ids
 * (tombstones.ts) and writes the job, one task per step (cascade.ts). Returns the job id.
 */
async function startSweep(
  trx: WriteTx,
  ctx: Ctx,
  target: Omit<SweepTarget, "workspaceId" | "now">,
): Promise<string> {
  const id = ctx.ids();
  const now = ctx.clock.now();
  const t = { ...target, workspaceId: ctx.workspace.id };
  await bury(trx, t, id, now);
  const subject: SweepSubject = { organizationId: t.organizationId, documentIds: t.documentIds };
  const steps = t.documentIds ? DOCUMENT_STEPS : ORGANIZATION_STEPS;
  await createJob(trx, {
    workspaceId: t.workspaceId,
    id,
    type: DELETE,
    tasks: steps.map((step) => ({ kind: step.name, subject })),
    now,
  });
  return id;
}

/** Runs each task's step one batch at a time; when all are done, the ids are freed. */
export const deleteJob: JobType = {
  name: DELETE,
  async runBatch(tx, kind, scope, _after, batch) {
    const step = stepNamed(kind);
    const subject = scope.subject as SweepSubject | null;
    if (!step || subject === null) return { done: 0, next: null };
    const done = await step.run(tx, { ...subject, workspaceId: scope.workspaceId, now: scope.now }, batch);
    // Each batch deletes what it swept, so the next starts from the start again.
    return { done, next: done < batch ? null : [] };
  },
  finish: (tx, job) => unbury(tx, job.workspaceId, job.id),
};
