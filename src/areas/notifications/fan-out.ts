import { createHash } from "node:crypto";
import { fixedBatches } from "../../db/batches.js";
import type { WriteTx } from "../../db/handles.js";
import type { NotificationRecipientRow } from "../../db/tables.js";
import { createJob, forgetJob } from "../../jobs/store.js";
import type { JobType, StepResult, TaskScope } from "../../jobs/types.js";
import { type NotificationRecord, recipientIds } from "./record.js";
import { lockNotificationId } from "./store.js";

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
  readonly userIds: readonly string[];
}

/**
 * The job of one notification's rest, one id per notification: an add that replaces the
 * notification deletes the job of the version it replaces in the same transaction.
 */
export function fanOutJobId(organizationId: string, notificationId: string): string {
  const digest = createHash("sha256").update(`${organizationId}\0${notificationId}`).digest("base64url");
  return `fan-${digest.slice(0, 24)}`;
}

/** Writes the job owing `rest` (rows of one notification), in the add's transaction. */
export async function owe(
  trx: WriteTx,
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
    id: fanOutJobId(first.organization_id, first.notification_id),
    type: FAN_OUT,
    tasks: [{ kind: FAN_OUT, subject }],
    now,
  });
}

/** Deletes the pending job of a notification being replaced, if any: the new version owes its own rows. */
export function forgetOwed(
  trx: WriteTx,
  workspaceId: string,
  organizationId: string,
  notificationId: string,
): Promise<void> {
  return forgetJob(trx, workspaceId, fanOutJobId(organizationId, notificationId));
}

/**
 * One slice of the rest. Under the notification's id lock, so no replace runs beside it;
 * the stored notification must still be the version that owes the rows (its timestamp),
 * and a row is written only for a user its record still addresses: an erasure that
 * scrubbed the user from the record (docs/privacy.md) leaves them out. Re-running a slice
 * after a crash finds its rows there (the primary key) and writes nothing twice.
 */
async function writeSlice(tx: WriteTx, scope: TaskScope, offset: number, batch: number): Promise<StepResult> {
  const owed = scope.subject as Owed;
  const { workspaceId } = scope;
  await lockNotificationId(tx, workspaceId, owed.organizationId, owed.notificationId);
  const stored = await tx
    .selectFrom("notifications")
    .select(["timestamp", "record", "document_id", "location_id"])
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", owed.organizationId)
    .where("id", "=", owed.notificationId)
    .executeTakeFirst();
  if (!stored || Number(stored.timestamp) !== owed.timestamp) return { done: 0, next: null };
  const addressed = new Set(recipientIds(JSON.parse(stored.record) as NotificationRecord));
  const end = offset + batch;
  const rows = owed.userIds
    .slice(offset, end)
    .filter((userId) => addressed.has(userId))
    .map(
      (userId): NotificationRecipientRow => ({
        workspace_id: workspaceId,
        organization_id: owed.organizationId,
        notification_id: owed.notificationId,
        user_id: userId,
        timestamp: owed.timestamp,
        document_id: stored.document_id,
        location_id: stored.location_id,
        is_read: 0,
        in_for_you: 1,
      }),
    );
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
