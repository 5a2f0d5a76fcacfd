import type { Readable, WriteTx } from "../db/handles.js";
import type { RawCondition } from "../db/raw.js";
import { type KeyLocks, lockKeys } from "../db/transactions.js";
import { failedPrecondition } from "../errors.js";
import { mentions } from "./scrub.js";

/**
 * The users an open erasure job is erasing (`erasing_users`, docs/decisions.md "Erasure
 * closes the window"). While a user is listed, a write whose data names them is refused
 * (`refuseNamingErased`, run inside every write transaction by src/http/operations.ts),
 * so nothing new about them can land behind the job's scans, and one pass of each kind
 * finds everything. On PostgreSQL the job's creation takes the workspace's lock
 * exclusively and every write shares it: a write either committed before the job did (and
 * its rows are there for the first scan) or checks after, and sees the user listed.
 */

/** Advisory-lock space of the erasing check ("era"). */
const ERASING_LOCK = 0x65_72_61;

/** Lists the job's users, in its creating transaction: after every write in flight has committed. */
export async function markErasing(
  trx: WriteTx,
  job: {
    readonly workspaceId: string;
    readonly id: string;
    readonly userIds: readonly string[];
    readonly now: number;
  },
): Promise<void> {
  await lockKeys(trx, ERASING_LOCK, [job.workspaceId]);
  if (job.userIds.length === 0) return;
  await trx
    .insertInto("erasing_users")
    .values(
      job.userIds.map((userId) => ({
        workspace_id: job.workspaceId,
        user_id: userId,
        job_id: job.id,
        created_at: job.now,
      })),
    )
    .execute();
}

/** Unlists the job's users, in the transaction that completes it: their ids may be written again. */
export async function unmarkErasing(trx: WriteTx, workspaceId: string, jobId: string): Promise<void> {
  await trx
    .deleteFrom("erasing_users")
    .where("workspace_id", "=", workspaceId)
    .where("job_id", "=", jobId)
    .execute();
}

/** The lock a write transaction shares before it checks `refuseNamingErased` (see above). */
export function erasingLocks(workspaceId: string): KeyLocks {
  return { space: ERASING_LOCK, keys: [workspaceId], mode: "shared" };
}

/**
 * Whether `refuseNamingErased` could refuse anything in the workspace, as one boolean
 * condition for the caller's single probe (src/http/operations.ts): an indexed read of a
 * table that is empty but while an erasure runs.
 */
export function mightNameErased(workspaceId: string): RawCondition {
  return { text: "exists (select 1 from erasing_users where workspace_id = ?)", params: [workspaceId] };
}

/**
 * Refuses a write whose data names a user being erased (a User object of theirs, their id
 * as a value, a key or a mention: what the erasure's scrub finds). Run in the write
 * transaction after taking `erasingLocks`.
 */
export async function refuseNamingErased(db: Readable, workspaceId: string, data: unknown): Promise<void> {
  const rows = await erasingUsers(db, workspaceId);
  for (const userId of rows) {
    if (mentions(data, userId))
      throw failedPrecondition(
        `User ${userId} is being erased; writes naming them are refused until the erasure completes ` +
          "(/v2/users/data/delete/status answers isDeleteCompleted: true).",
      );
  }
}

async function erasingUsers(db: Readable, workspaceId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("erasing_users")
    .select("user_id")
    .distinct()
    .where("workspace_id", "=", workspaceId)
    .execute();
  return rows.map((row) => row.user_id);
}
