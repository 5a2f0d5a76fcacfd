import { type Kysely, PostgresAdapter, sql } from "kysely";
import type { Quotas } from "../config.js";
import type { Ctx } from "../context.js";
import type { Tables, WorkspaceUsageRow } from "../db/tables.js";
import { ApiError } from "../errors.js";

/** The quotas by the name used in messages and in the `quota` label of the metrics. */
export const QUOTAS = [
  { name: "records", limit: "records", usage: "records", noun: "records" },
  {
    name: "bytes",
    limit: "bytes",
    usage: "bytes",
    noun: "bytes of stored content",
  },
  { name: "folders", limit: "folders", usage: "folders", noun: "folders" },
  {
    name: "pending_deliveries",
    limit: "pendingDeliveries",
    usage: "pending_deliveries",
    noun: "pending webhook deliveries",
  },
] as const satisfies readonly {
  name: string;
  limit: keyof Quotas;
  usage: keyof WorkspaceUsageRow;
  noun: string;
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
 *
 * On PostgreSQL usage is summed over the workspace's rows, which concurrent transactions
 * update without waiting for each other; the sum sees what they committed, not what they
 * have in flight. Far below every quota that cannot matter. Near one (within HEADROOM) the
 * check takes the workspace's advisory lock, held to commit, and sums again: transactions
 * near a quota then pass one at a time, each seeing the one before, so none can overshoot.
 */
export async function checkQuotas(trx: Kysely<Tables>, ctx: Ctx): Promise<void> {
  const limits = ctx.config.quotas;
  if (unlimited(limits)) return;
  const usage = await sumUsage(trx, ctx.workspace.id);
  if (trx.getExecutor().adapter instanceof PostgresAdapter && nearAQuota(limits, usage)) {
    await sql`select pg_advisory_xact_lock(${LOCK_SPACE}, hashtext(${ctx.workspace.id}))`.execute(trx);
    refuseBeyond(limits, await sumUsage(trx, ctx.workspace.id));
    return;
  }
  refuseBeyond(limits, usage);
}

/** The first key of the advisory locks taken here (the second is the workspace's hash). */
const LOCK_SPACE = 0x71_75_6f;

/**
 * How close to a quota the check serializes: a tenth of the quota, and at least this much.
 * Overshooting would take more than that being written by one workspace's transactions in
 * flight at the same moment (request bodies are at most a few MiB each).
 */
const HEADROOM: Usage = {
  records: 100_000,
  bytes: 256 * 1024 ** 2,
  folders: 10_000,
  pending_deliveries: 10_000,
};

type Usage = Omit<WorkspaceUsageRow, "workspace_id" | "shard">;

function nearAQuota(limits: Quotas, usage: Usage): boolean {
  return QUOTAS.some((q) => {
    const limit = limits[q.limit];
    return limit > 0 && limit - usage[q.usage] <= Math.max(limit / 10, HEADROOM[q.usage]);
  });
}

async function sumUsage(trx: Kysely<Tables>, workspaceId: string): Promise<Usage> {
  const row = await trx
    .selectFrom("workspace_usage")
    .select((eb) => [
      eb.fn.coalesce(eb.fn.sum<number>("records"), eb.lit(0)).as("records"),
      eb.fn.coalesce(eb.fn.sum<number>("bytes"), eb.lit(0)).as("bytes"),
      eb.fn.coalesce(eb.fn.sum<number>("folders"), eb.lit(0)).as("folders"),
      eb.fn.coalesce(eb.fn.sum<number>("pending_deliveries"), eb.lit(0)).as("pending_deliveries"),
    ])
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirstOrThrow();
  // PostgreSQL sums bigints as numeric, which pg hands over as strings.
  return {
    records: Number(row.records),
    bytes: Number(row.bytes),
    folders: Number(row.folders),
    pending_deliveries: Number(row.pending_deliveries),
  };
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
export async function releaseUsage(
  trx: Kysely<Tables>,
  ctx: Pick<Ctx, "workspace">,
  delta: UsageDelta | null,
): Promise<void> {
  if (delta !== null && (delta.records !== 0 || delta.bytes !== 0)) await addUsage(trx, ctx, delta);
}

function addUsage(trx: Kysely<Tables>, ctx: Pick<Ctx, "workspace">, delta: UsageDelta) {
  return trx
    .updateTable("workspace_usage")
    .set((eb) => ({
      records: eb("records", "+", delta.records),
      bytes: eb("bytes", "+", delta.bytes),
    }))
    .where("workspace_id", "=", ctx.workspace.id)
    .where("shard", "=", 0)
    .returning(["records", "bytes", "folders", "pending_deliveries"])
    .executeTakeFirst();
}

function unlimited(limits: Quotas): boolean {
  return QUOTAS.every((q) => limits[q.limit] === 0);
}

function refuseBeyond(limits: Quotas, usage: Usage): void {
  for (const quota of QUOTAS) {
    const limit = limits[quota.limit];
    if (limit > 0 && usage[quota.usage] > limit) throw new QuotaExceeded(quota.name, limit, quota.noun);
  }
}
