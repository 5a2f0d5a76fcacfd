import { type Kysely, sql } from "kysely";
import type { Quotas } from "../config.js";
import type { Ctx } from "../context.js";
import type { Tables, WorkspaceUsageRow } from "../db/tables.js";
import { isPostgresExecutor } from "../db/transactions.js";
import { ApiError, crossesProcesses } from "../errors.js";

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
crossesProcesses(QuotaExceeded);

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
  if (isPostgresExecutor(trx) && nearAQuota(limits, usage)) {
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
  return toUsage(row);
}

// PostgreSQL sums bigints as numeric, which pg hands over as strings.
function toUsage(row: Record<keyof Usage, string | number>): Usage {
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
 * exceeded: one statement per request, whatever the number of records, which also answers
 * the workspace's usage (no second read). A null or zero delta: this is `checkQuotas`.
 * Near a quota on PostgreSQL the check serializes as `checkQuotas` does.
 */
export async function chargeUsage(trx: Kysely<Tables>, ctx: Ctx, delta: UsageDelta | null): Promise<void> {
  if (delta === null || (delta.records === 0 && delta.bytes === 0)) return checkQuotas(trx, ctx);
  const usage = await addUsage(trx, ctx.workspace.id, delta);
  const limits = ctx.config.quotas;
  if (unlimited(limits)) return;
  if (isPostgresExecutor(trx) && nearAQuota(limits, usage)) {
    await sql`select pg_advisory_xact_lock(${LOCK_SPACE}, hashtext(${ctx.workspace.id}))`.execute(trx);
    refuseBeyond(limits, await sumUsage(trx, ctx.workspace.id));
    return;
  }
  refuseBeyond(limits, usage);
}

/** The workspace's usage at some point of a transaction, for `checkGrowth`; null with no quota set. */
export type UsageMark = Usage | null;

export async function markUsage(trx: Kysely<Tables>, ctx: Ctx): Promise<UsageMark> {
  return unlimited(ctx.config.quotas) ? null : sumUsage(trx, ctx.workspace.id);
}

/**
 * `checkQuotas` for what a transaction wrote beyond its verb's own check (an Idempotency-Key
 * and its stored answer): only when usage grew since `mark`, so a delete that frees at least
 * what it added still goes through above a quota.
 */
export async function checkGrowth(trx: Kysely<Tables>, ctx: Ctx, mark: UsageMark): Promise<void> {
  if (mark === null) return;
  const now = await sumUsage(trx, ctx.workspace.id);
  if (QUOTAS.some((q) => now[q.usage] > mark[q.usage])) await checkQuotas(trx, ctx);
}

/** Takes `delta` (a delete's, negative) off the workspace's usage, refusing nothing. */
export async function releaseUsage(
  trx: Kysely<Tables>,
  ctx: { readonly workspace: { readonly id: string } },
  delta: UsageDelta | null,
): Promise<void> {
  if (delta !== null && (delta.records !== 0 || delta.bytes !== 0))
    await addUsage(trx, ctx.workspace.id, delta);
}

/**
 * Usage rows per workspace on PostgreSQL, as migration 0007's triggers write them: a
 * connection adds to row `pg_backend_pid() % USAGE_SHARDS`, so concurrent writers of one
 * workspace do not queue on one row lock until their commits.
 */
const USAGE_SHARDS = 16;

/** Adds `delta` and answers the workspace's usage after it. */
async function addUsage(trx: Kysely<Tables>, workspaceId: string, delta: UsageDelta): Promise<Usage> {
  if (!isPostgresExecutor(trx)) {
    const row = await trx
      .updateTable("workspace_usage")
      .set((eb) => ({
        records: eb("records", "+", delta.records),
        bytes: eb("bytes", "+", delta.bytes),
      }))
      .where("workspace_id", "=", workspaceId)
      .where("shard", "=", 0)
      .returning(["records", "bytes", "folders", "pending_deliveries"])
      .executeTakeFirstOrThrow();
    return toUsage(row);
  }
  // This connection's row, then the others as committed when the statement began: what a
  // separate sum after the update would see, in one round trip.
  const { rows } = await sql<Record<keyof Usage, string | number>>`
    with mine as (
      insert into workspace_usage as u (workspace_id, shard, records, bytes)
      values (${workspaceId}, pg_backend_pid() % ${sql.lit(USAGE_SHARDS)}, ${delta.records}, ${delta.bytes})
      on conflict (workspace_id, shard) do update
      set records = u.records + excluded.records, bytes = u.bytes + excluded.bytes
      returning shard, records, bytes, folders, pending_deliveries)
    select m.records + coalesce(sum(o.records), 0) as records, m.bytes + coalesce(sum(o.bytes), 0) as bytes,
      m.folders + coalesce(sum(o.folders), 0) as folders,
      m.pending_deliveries + coalesce(sum(o.pending_deliveries), 0) as pending_deliveries
    from mine m left join workspace_usage o on o.workspace_id = ${workspaceId} and o.shard <> m.shard
    group by m.records, m.bytes, m.folders, m.pending_deliveries`.execute(trx);
  return toUsage(rows[0]!);
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
