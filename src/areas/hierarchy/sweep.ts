import type { Ctx } from "../../context.js";
import { inListChunks } from "../../db/batches.js";
import type { WriteTx } from "../../db/handles.js";
import { createJob } from "../../jobs/store.js";
import type { JobType } from "../../jobs/types.js";
import { DOCUMENT_STEPS, ORGANIZATION_STEPS, type SweepTarget, stepNamed } from "./cascade.js";
import { bury, buryFolders, documentsInSweptFolders, unbury } from "./tombstones.js";

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

/** The delete job's task that sweeps the documents of deleted folders, found through the job's folder tombstones. */
const FOLDER_DOCUMENTS = "folder-documents";

/** What a folder delete's task sweeps: stored as its subject (the folders are its tombstones). */
interface FolderSweepSubject {
  readonly organizationId: string;
}

interface FolderScope {
  readonly workspaceId: string;
  readonly organizationId: string;
  readonly now: number;
}

/**
 * One bounded batch of a folder sweep: picks up to half of `batch` documents of the folders,
 * deletes what they hold (DOCUMENT_STEPS) with the other half, and their records once all of
 * it is gone. Rows deleted stay within `batch`. `more`: documents may be left.
 */
async function sweepFolderDocuments(
  trx: WriteTx,
  t: FolderScope,
  pick: (limit: number) => Promise<string[]>,
  batch: number,
): Promise<{ done: number; more: boolean }> {
  const ids = await pick(Math.max(1, Math.floor(batch / 2)));
  if (ids.length === 0) return { done: 0, more: false };
  let budget = Math.max(1, batch - ids.length);
  let done = 0;
  const target = { ...t, documentIds: ids };
  for (const step of DOCUMENT_STEPS) {
    for (;;) {
      if (budget === 0) return { done, more: true };
      const asked = budget;
      const deleted = await step.run(trx, target, asked);
      done += deleted;
      budget -= deleted;
      if (deleted < asked) break;
    }
  }
  await trx
    .deleteFrom("documents")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId)
    .where("id", "in", ids)
    .execute();
  return { done: done + ids.length, more: true };
}

/** Up to `limit` ids of documents placed in `folderIds` (the request still knows the deleted folders). */
async function documentsInFolders(
  trx: WriteTx,
  t: FolderScope,
  folderIds: readonly string[],
  limit: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (const chunk of inListChunks(folderIds)) {
    const rows = await trx
      .selectFrom("documents")
      .select("id")
      .where("workspace_id", "=", t.workspaceId)
      .where("organization_id", "=", t.organizationId)
      .where("folder_id", "in", chunk)
      .limit(limit - ids.length)
      .execute();
    for (const row of rows) ids.push(row.id);
    if (ids.length === limit) break;
  }
  return ids;
}

/** Up to `limit` ids of documents placed in the folders the job holds tombstones of. */
async function documentsOfSweptFolders(
  trx: WriteTx,
  t: FolderScope,
  jobId: string,
  limit: number,
): Promise<string[]> {
  const rows = await documentsInSweptFolders(trx, t.workspaceId, t.organizationId)
    .select("d.id")
    .where("f.job_id", "=", jobId)
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/** How many documents `folderIds` hold (what a folder delete answers as deletedDocumentCount). */
export async function countDocumentsInFolders(
  trx: WriteTx,
  t: { readonly workspaceId: string; readonly organizationId: string },
  folderIds: readonly string[],
): Promise<number> {
  let count = 0;
  for (const chunk of inListChunks(folderIds)) {
    const row = await trx
      .selectFrom("documents")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("workspace_id", "=", t.workspaceId)
      .where("organization_id", "=", t.organizationId)
      .where("folder_id", "in", chunk)
      .executeTakeFirstOrThrow();
    count += Number(row.n);
  }
  return count;
}

/**
 * Deletes the documents placed in the folders of a deleted subtree (their rows already
 * gone) with everything they hold: one bounded batch (COLLABD_ERASURE_BATCH_ROWS rows) right
 * here, so a small folder is complete when answered; what is left goes to a delete job under
 * a tombstone per folder (tombstones.ts), which hides the documents at once. Returns the
 * job's id or null; the caller kicks the runner once its transaction is durable.
 */
export async function deleteFolderDocumentsOrSweep(
  trx: WriteTx,
  ctx: Ctx,
  organizationId: string,
  folderIds: readonly string[],
): Promise<string | null> {
  const t = { workspaceId: ctx.workspace.id, organizationId, now: ctx.clock.now() };
  const pick = (limit: number) => documentsInFolders(trx, t, folderIds, limit);
  const first = await sweepFolderDocuments(trx, t, pick, ctx.config.erasureBatchRows);
  if (!first.more || (await pick(1)).length === 0) return null;
  const id = ctx.ids();
  await buryFolders(trx, t, folderIds, id, t.now);
  const subject: FolderSweepSubject = { organizationId };
  await createJob(trx, {
    workspaceId: t.workspaceId,
    id,
    type: DELETE,
    tasks: [{ kind: FOLDER_DOCUMENTS, subject }],
    now: t.now,
  });
  return id;
}

/** Runs each task's step one batch at a time; when all are done, the ids are freed. */
export const deleteJob: JobType = {
  name: DELETE,
  async runBatch(tx, kind, scope, _after, batch) {
    if (kind === FOLDER_DOCUMENTS) {
      const subject = scope.subject as FolderSweepSubject | null;
      if (subject === null) return { done: 0, next: null };
      const t = { workspaceId: scope.workspaceId, organizationId: subject.organizationId, now: scope.now };
      const pick = (limit: number) => documentsOfSweptFolders(tx, t, scope.jobId, limit);
      const { done, more } = await sweepFolderDocuments(tx, t, pick, batch);
      // Each batch deletes what it swept, so the next picks from the start again.
      return { done, next: more ? [] : null };
    }
    const step = stepNamed(kind);
    const subject = scope.subject as SweepSubject | null;
    if (!step || subject === null) return { done: 0, next: null };
    const done = await step.run(tx, { ...subject, workspaceId: scope.workspaceId, now: scope.now }, batch);
    // Each batch deletes what it swept, so the next starts from the start again.
    return { done, next: done < batch ? null : [] };
  },
  finish: (tx, job) => unbury(tx, job.workspaceId, job.id),
};
