import type { Ctx } from "../context.js";
import type { WriteTx } from "../db/handles.js";
import { notFound } from "../errors.js";
import { readJob } from "../jobs/store.js";
import { openStringKey } from "../lib/paging.js";
import { checkQuotas } from "../quotas/check.js";
import { createErasureJob, ERASURE } from "./jobs.js";
import type { Position } from "./kind.js";
import { PERSONAL_DATA_KINDS } from "./registry.js";
import type { DeleteUserDataInput, GetJobStatusInput, GetUserDataInput } from "./schemas.js";

/** Records per key and page (docs/contract.md "User data"). */
export const EXPORT_PAGE = 100;

/** Keys of the export (docs/contract.md "User data") that no kind fills yet: always present, `[]`. */
const FIXED_KEYS = ["comments", "reactions", "recordings", "notifications", "users", "activities"] as const;

/** Where each kind's walk stands: a position, or "done". */
type ExportState = Record<string, Position | "done">;

export interface UserDataPage {
  readonly data: Record<string, unknown[]>;
  /** null on the last page. */
  readonly next: string | null;
}

/**
 * One page of everything the workspace holds about a user in an organization
 * (docs/contract.md "User data"): up to 100 records per kind, each kind walked by its own keyset position, all
 * positions in one sealed token. An unknown organization or user is an empty export,
 * so the answer never tells another tenant whether they exist.
 */
export async function exportUserData(ctx: Ctx, input: GetUserDataInput): Promise<UserDataPage> {
  const query = { organizationId: input.organizationId, userId: input.userId };
  const text = openStringKey(ctx, query, input.pageToken);
  const state: ExportState = text === null ? {} : (JSON.parse(text) as ExportState);
  const scope = { workspaceId: ctx.workspace.id, ...query };
  const data: Record<string, unknown[]> = Object.fromEntries(FIXED_KEYS.map((key) => [key, []]));
  const next: ExportState = {};
  for (const kind of PERSONAL_DATA_KINDS) {
    if (!kind.export || !kind.exportKey) continue;
    const at = state[kind.name];
    if (at === "done") {
      data[kind.exportKey] ??= [];
      next[kind.name] = "done";
      continue;
    }
    const page = await kind.export(ctx.reader, scope, at ?? null, EXPORT_PAGE);
    data[kind.exportKey] = [...(data[kind.exportKey] ?? []), ...page.items];
    next[kind.name] = page.next ?? "done";
  }
  const more = Object.values(next).some((at) => at !== "done");
  return {
    data,
    next: more ? ctx.pageTokens.seal(ctx.workspace.id, query, [JSON.stringify(next)], ctx.clock.now()) : null,
  };
}

/**
 * Starts erasing users' data (docs/contract.md "User data"): the job and its tasks commit with the request,
 * then this process's worker is woken; the answer does not wait for the work.
 */
export async function startErasure(
  ctx: Ctx,
  input: DeleteUserDataInput,
): Promise<{ jobId: string; tasksCount: number }> {
  const jobId = ctx.ids();
  const userIds = [...new Set(input.userIds)];
  const tasksCount = await ctx.write(
    (trx) =>
      checkedErasureJob(trx, ctx, {
        workspaceId: ctx.workspace.id,
        id: jobId,
        userIds,
        organizationIds: input.organizationIds ? [...new Set(input.organizationIds)] : null,
        now: ctx.clock.now(),
      }),
    1 + userIds.length * (1 + PERSONAL_DATA_KINDS.filter((kind) => kind.erase).length),
  );
  ctx.jobs.kick();
  return { jobId, tasksCount };
}

/** A job's progress; another workspace's job is NOT_FOUND like an unknown one. */
export async function erasureStatus(
  ctx: Ctx,
  input: GetJobStatusInput,
): Promise<{ isDeleteCompleted: boolean; tasksLeft: number; lastTaskCompletedTime: number | null }> {
  const status = await readJob(ctx.reader, ctx.workspace.id, ERASURE, input.jobId);
  if (!status) throw notFound("Job not found.");
  const { isDeleteCompleted, tasksLeft, lastTaskCompletedTime } = status;
  return { isDeleteCompleted, tasksLeft, lastTaskCompletedTime };
}

/**
 * A job and its tasks are records like any other (src/quotas/registry.ts): a workspace at
 * its records quota deletes data (deletes always go through) or has the quota raised first.
 */
async function checkedErasureJob(
  trx: WriteTx,
  ctx: Ctx,
  job: Parameters<typeof createErasureJob>[1],
): Promise<number> {
  const tasks = await createErasureJob(trx, job);
  await checkQuotas(trx, ctx);
  return tasks;
}
