import { fixedBatches } from "../../db/batches.js";
import type { WriteTx } from "../../db/handles.js";
import type { NotificationRecipientRow } from "../../db/tables.js";
import { lockedForUpdate } from "../../db/transactions.js";
import { createJob } from "../../jobs/store.js";
import type { JobType, StepResult, TaskScope } from "../../jobs/types.js";
import { inboxRow } from "./compose.js";
import { type NotificationRecord, recipientIds } from "./record.js";

/**
 * Inbox rows beyond the first slice of a notification are written by a durable job
 * (docs/decisions.md "Large fan-outs are written in slices"): each of the three indexes
 * keyed by user puts every recipient on a page of its own, so 1 000 recipients cost the
 * writer tens of milliseconds, and a notification may have 2 000. The add writes the
 * notification and its first slice; the job writes the rest, one slice per short
 * transaction, and resumes after a crash.
 */
export const FAN_OUT = "notification-recipients";

/**
 * What the job still owes: the notification (its version by timestamp) and the users, in
 * the order they are written. The rows' document and location are read from the stored
 * notification at each slice, so a document migration or location update that moved it
 * meanwhile moves the rows still owed too.
 */
interface Owed {
  readonly organizationId: string;
  readonly notificationId: string;
  readonly timestamp: number;
  /** null: a user erased since (src/privacy/kinds/notifications.ts blanks the id, keeping positions). */
  readonly userIds: readonly (string | null)[];
}

/**
 * Writes the job owing `rest` (rows of one notification), in the add's transaction. Each
 * version owes its rows under a job of its own: an add that replaces the notification leaves
 * the old version's job alone (deleting it would take that job's row lock, which its runner
 * holds while it waits for the notification's: a deadlock on PostgreSQL), and the old job,
 * finding another version stored, writes nothing.
 */
export async function owe(
  trx: WriteTx,
  jobId: string,
  rest: readonly NotificationRecipientRow[],
  now: number,
): Promise<void> {
  const first = rest[0];
  if (!first) return;
  const subject: Owed = {
    organizationId: first.organization_id,
    notificationId: first.notification_id,
    timestamp: first.timestamp,
    userIds: rest.map((row) => row.user_id),
  };
  await createJob(trx, {
    workspaceId: first.workspace_id,
    id: jobId,
    type: FAN_OUT,
    tasks: [{ kind: FAN_OUT, subject }],
    now,
  });
}

/**
 * One slice of the rest. The stored notification is read locked (PostgreSQL), so a replace,
 * delete, sweep, migration or location rewrite of it runs before or after the slice, never
 * beside it (each of them locks or deletes the notification before its inbox rows). It must
 * still be the version that owes the rows (its timestamp), and a row is written only for a
 * user its record still addresses: an erasure that scrubbed the user from the record
 * (docs/privacy.md) leaves them out. Re-running a slice after a crash finds its rows there
 * (the primary key) and writes nothing twice.
 */
async function writeSlice(tx: WriteTx, scope: TaskScope, offset: number, batch: number): Promise<StepResult> {
  const owed = scope.subject as Owed;
  const stored = await lockedForUpdate(
    tx,
    tx
      .selectFrom("notifications")
      .select(["workspace_id", "organization_id", "id", "timestamp", "document_id", "location_id", "record"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("organization_id", "=", owed.organizationId)
      .where("id", "=", owed.notificationId),
  ).executeTakeFirst();
  if (!stored || Number(stored.timestamp) !== owed.timestamp) return { done: 0, next: null };
  const addressed = new Set(recipientIds(JSON.parse(stored.record) as NotificationRecord));
  const end = offset + batch;
  const rows = owed.userIds
    .slice(offset, end)
    .filter((userId): userId is string => userId !== null && addressed.has(userId))
    .map((userId) => inboxRow({ ...stored, timestamp: owed.timestamp }, userId));
  for (const part of fixedBatches(rows, 1000))
    await tx
      .insertInto("notification_recipients")
      .values(part)
      .onConflict((oc) => oc.doNothing())
      .execute();
  return { done: rows.length, next: end < owed.userIds.length ? [end] : null };
}

export const fanOutJob: JobType = {
  name: FAN_OUT,
  forgetWhenDone: true,
  runBatch(tx, kind, scope, after, batch) {
    if (kind !== FAN_OUT) return Promise.resolve({ done: 0, next: null });
    return writeSlice(tx, scope, Number(after?.[0] ?? 0), batch);
  },
};
