import type { Kysely } from "kysely";
import type { Quotas } from "../config.js";
import type { Ctx } from "../context.js";
import type { Tables, WorkspaceUsageRow } from "../db/tables.js";
import { ApiError } from "../errors.js";

/** The quotas by the name used in messages and in the `quota` label of the metrics. */
export const QUOTAS = [
  { name: "records", limit: "records", usage: "records", noun: "records", env: "COLLABD_QUOTA_RECORDS" },
  {
    name: "bytes",
    limit: "bytes",
    usage: "bytes",
    noun: "bytes of stored content",
    env: "COLLABD_QUOTA_BYTES",
  },
  { name: "folders", limit: "folders", usage: "folders", noun: "folders", env: "COLLABD_QUOTA_FOLDERS" },
  {
    name: "pending_deliveries",
    limit: "pendingDeliveries",
    usage: "pending_deliveries",
    noun: "pending webhook deliveries",
    env: "COLLABD_QUOTA_PENDING_DELIVERIES",
  },
] as const satisfies readonly {
  name: string;
  limit: keyof Quotas;
  usage: keyof WorkspaceUsageRow;
  noun: string;
  env: string;
}[];

export type QuotaName = (typeof QUOTAS)[number]["name"];

/** A write refused because the workspace would hold more than a quota allows: 429 RESOURCE_EXHAUSTED. */
export class QuotaExceeded extends ApiError {
  constructor(
    readonly quota: QuotaName,
    limit: number,
    noun: string,
  ) {
    super(
      "RESOURCE_EXHAUSTED",
      `Quota exceeded: a workspace may hold at most ${limit} ${noun}; nothing was written. ` +
        "Delete data or ask the operator to raise the quota.",
    );
  }
}

/**
 * Refuses the transaction when the workspace now holds more than a quota allows. Call it
 * inside `ctx.write`, after the verb's writes: usage is already updated by the tables'
 * triggers (migration 0007), so this is one indexed read however many records the request
 * wrote, and throwing rolls the whole request back. Only verbs that can grow usage call it,
 * so deletes always go through, even above a quota an operator lowered.
 */
export async function checkQuotas(trx: Kysely<Tables>, ctx: Ctx): Promise<void> {
  if (unlimited(ctx.config.quotas)) return;
  const usage = await trx
    .selectFrom("workspace_usage")
    .select(["records", "bytes", "folders", "pending_deliveries"])
    .where("workspace_id", "=", ctx.workspace.id)
    .executeTakeFirst();
  if (usage) refuseBeyond(ctx.config.quotas, usage);
}

/** Usage a verb accounts itself (activities: no triggers there), positive or negative. */
export interface UsageDelta {
  readonly records: number;
  readonly bytes: number;
}

/**
 * Adds `delta` to the workspace's usage and refuses the transaction if a quota is now
 * exceeded: one statement per request, whatever the number of records. A null delta was
 * counted by triggers already: then this is `checkQuotas`.
 */
export async function chargeUsage(trx: Kysely<Tables>, ctx: Ctx, delta: UsageDelta | null): Promise<void> {
  if (delta === null || (delta.records === 0 && delta.bytes === 0)) return checkQuotas(trx, ctx);
  const usage = await addUsage(trx, ctx, delta);
  if (usage && !unlimited(ctx.config.quotas)) refuseBeyond(ctx.config.quotas, usage);
}

/** Takes `delta` (a delete's, negative) off the workspace's usage, refusing nothing. */
export async function releaseUsage(trx: Kysely<Tables>, ctx: Ctx, delta: UsageDelta | null): Promise<void> {
  if (delta !== null && (delta.records !== 0 || delta.bytes !== 0)) await addUsage(trx, ctx, delta);
}

function addUsage(trx: Kysely<Tables>, ctx: Ctx, delta: UsageDelta) {
  return trx
    .updateTable("workspace_usage")
    .set((eb) => ({
      records: eb("records", "+", delta.records),
      bytes: eb("bytes", "+", delta.bytes),
    }))
    .where("workspace_id", "=", ctx.workspace.id)
    .returning(["records", "bytes", "folders", "pending_deliveries"])
    .executeTakeFirst();
}

function unlimited(limits: Quotas): boolean {
  return QUOTAS.every((q) => limits[q.limit] === 0);
}

function refuseBeyond(limits: Quotas, usage: Omit<WorkspaceUsageRow, "workspace_id">): void {
  for (const quota of QUOTAS) {
    const limit = limits[quota.limit];
    if (limit > 0 && usage[quota.usage] > limit) throw new QuotaExceeded(quota.name, limit, quota.noun);
  }
}
