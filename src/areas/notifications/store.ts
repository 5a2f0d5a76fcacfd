import { sql } from "kysely";
import { fixedBatches } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { NotificationRecipientRow, NotificationRow } from "../../db/tables.js";
import { lockedForUpdate, lockKeys } from "../../db/transactions.js";
import { type FilledPage, fillPage, type TimeSortKey } from "../../lib/paging.js";
import { withUserState } from "./record.js";

type Db = Readable;

/** The organization narrowed by whatever of document, location, user and ids is given. */
export interface NotificationScope {
  readonly workspaceId: string;
  readonly organizationId: string;
  readonly documentId?: string;
  readonly locationId?: string;
  readonly userId?: string;
  readonly ids?: readonly string[];
  /**
   * Lists only: notifications whose timestamp is past this (the notification service's delay and
   * batches write a notification with the time it becomes visible: docs/compatibility.md "Notification service").
   */
  readonly visibleAt?: number;
}

/** Which of a user's notifications a list holds; only with a userId. */
export type UserView = "all" | "unread" | "forYou";

export type SortKey = TimeSortKey;

/** Serialized public records in order, and the sort key of the last when another page may follow. */
export type Page = FilledPage<SortKey>;

/**
 * Rows and id lists go in pieces of a few fixed sizes (db/batches.ts): few distinct texts,
 * and no statement near either dialect's parameter limit. Up to 1000 at once: an update of
 * 1000 notifications (the API's maximum) is one statement per step, not six.
 */
const chunks = <T>(items: readonly T[]) => fixedBatches(items, 1000);

/** The first key of the advisory locks on client-chosen notification ids (the second is the id's hash). */
const ID_LOCKS = 0x6e_6f_74;

/**
 * Queues writers of one client-chosen notification id until commit (PostgreSQL; SQLite has one
 * writer): without it two concurrent adds of a new id both find nothing to replace, and the
 * second insert fails on the primary key.
 */
export async function lockNotificationId(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  id: string,
): Promise<void> {
  await lockKeys(db, ID_LOCKS, [JSON.stringify([workspaceId, organizationId, id])]);
}

/**
 * Inserts a notification with its recipients, replacing any notification with that id
 * whole. Returns the stored size of the one it replaced, if any (quotas).
 */
export async function replaceNotification(
  db: WriteTx,
  row: NotificationRow,
  recipients: readonly NotificationRecipientRow[],
): Promise<number[]> {
  const replaced = await deleteByIds(db, row.workspace_id, row.organization_id, [row.id]);
  await db.insertInto("notifications").values(row).execute();
  for (const part of chunks(recipients))
    await db.insertInto("notification_recipients").values(part).execute();
  return replaced;
}

interface ListedRow {
  readonly record: string;
  readonly timestamp: number;
  readonly id: string;
  /** With a user: that user's recipient state (`isUnread`, `forYou`: docs/contract.md "Notifications"). */
  readonly is_read?: number;
  readonly in_for_you?: number;
}

/**
 * One keyset page in (timestamp, id) order. With a user the walk runs over that user's
 * recipient rows (one index range per view) and joins the record; otherwise over the
 * organization's, document's or location's index of notifications. A user's page carries
 * that user's `isUnread` and `forYou` in each record.
 */
export async function listNotifications(
  db: Db,
  scope: NotificationScope,
  view: UserView,
  order: "asc" | "desc",
  after: SortKey | null,
  bounds: { limit: number; budget: number; chunkRows: number },
): Promise<Page> {
  const dir = order === "asc" ? ">" : "<";
  const fetch = (after: SortKey | null, rows: number): Promise<ListedRow[]> => {
    if (scope.userId !== undefined) {
      let query = db
        .selectFrom("notification_recipients as r")
        .innerJoin("notifications as n", (join) =>
          join
            .onRef("n.workspace_id", "=", "r.workspace_id")
            .onRef("n.organization_id", "=", "r.organization_id")
            .onRef("n.id", "=", "r.notification_id"),
        )
        .select([
          "n.record as record",
          "r.timestamp as timestamp",
          "r.notification_id as id",
          "r.is_read as is_read",
          "r.in_for_you as in_for_you",
        ])
        .where("r.workspace_id", "=", scope.workspaceId)
        .where("r.organization_id", "=", scope.organizationId)
        .where("r.user_id", "=", scope.userId);
      if (view === "unread") query = query.where("r.is_read", "=", 0);
      if (view === "forYou") query = query.where("r.in_for_you", "=", 1);
      if (scope.documentId !== undefined) query = query.where("r.document_id", "=", scope.documentId);
      if (scope.locationId !== undefined) query = query.where("r.location_id", "=", scope.locationId);
      if (scope.ids) query = query.where("r.notification_id", "in", [...scope.ids]);
      if (scope.visibleAt !== undefined) query = query.where("r.timestamp", "<=", scope.visibleAt);
      if (after) {
        query = query.where((eb) =>
          eb(eb.refTuple("r.timestamp", "r.notification_id"), dir, eb.tuple(after[0], after[1])),
        );
      }
      return query.orderBy("r.timestamp", order).orderBy("r.notification_id", order).limit(rows).execute();
    }
    let all = db
      .selectFrom("notifications")
      .select(["record", "timestamp", "id"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("organization_id", "=", scope.organizationId);
    if (scope.documentId !== undefined) all = all.where("document_id", "=", scope.documentId);
    if (scope.locationId !== undefined) all = all.where("location_id", "=", scope.locationId);
    if (scope.ids) all = all.where("id", "in", [...scope.ids]);
    if (scope.visibleAt !== undefined) all = all.where("timestamp", "<=", scope.visibleAt);
    if (after) all = all.where((eb) => eb(eb.refTuple("timestamp", "id"), dir, eb.tuple(after[0], after[1])));
    return all.orderBy("timestamp", order).orderBy("id", order).limit(rows).execute();
  };
  return fillPage({
    ...bounds,
    after,
    fetch,
    text: (row) =>
      row.is_read === undefined
        ? row.record
        : withUserState(row.record, Number(row.is_read) === 1, Number(row.in_for_you) === 1),
    key: (row): SortKey => [Number(row.timestamp), row.id],
  });
}

/**
 * The notifications of `ids`, locked until commit (PostgreSQL `FOR UPDATE`, in id order):
 * a concurrent update waits, so no merge is lost and the sizes before are exact (quotas).
 */
export async function lockNotifications(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<NotificationRow[]> {
  const found: NotificationRow[] = [];
  for (const part of chunks([...ids].sort())) {
    const rows = await lockedForUpdate(
      db,
      db
        .selectFrom("notifications")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("organization_id", "=", organizationId)
        .where("id", "in", part)
        .orderBy("id"),
    ).execute();
    for (const row of rows) found.push({ ...row, timestamp: Number(row.timestamp) });
  }
  return found;
}

/** Rewrites the records of existing notifications, many per statement. */
export async function replaceRecords(db: WriteTx, rows: readonly NotificationRow[]): Promise<void> {
  for (const part of chunks(rows)) {
    await db
      .insertInto("notifications")
      .values(part)
      .onConflict((oc) =>
        oc
          .columns(["workspace_id", "organization_id", "id"])
          .doUpdateSet((eb) => ({ record: eb.ref("excluded.record") })),
      )
      .execute();
  }
}

/** Marks the given users' recipient rows read; `inForYou` says whether the rows stay in For You. */
export async function markRead(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  notificationIds: readonly string[],
  userIds: readonly string[],
  inForYou: boolean,
): Promise<void> {
  if (userIds.length === 0) return;
  for (const part of chunks(notificationIds)) {
    await db
      .updateTable("notification_recipients")
      .set({ is_read: 1, in_for_you: inForYou ? 1 : 0 })
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("notification_id", "in", part)
      .where("user_id", "in", [...userIds])
      .execute();
  }
}

/** Deletes notifications with their recipient rows; returns the ids asked for and the sizes deleted. */
export async function deleteNotifications(
  db: WriteTx,
  scope: NotificationScope,
): Promise<{ ids: string[]; sizes: number[] }> {
  let query = db
    .selectFrom("notifications")
    .select("id")
    .where("workspace_id", "=", scope.workspaceId)
    .where("organization_id", "=", scope.organizationId);
  if (scope.documentId !== undefined) query = query.where("document_id", "=", scope.documentId);
  if (scope.locationId !== undefined) query = query.where("location_id", "=", scope.locationId);
  if (scope.ids) query = query.where("id", "in", [...scope.ids]);
  if (scope.userId !== undefined) {
    const userId = scope.userId;
    query = query.where("id", "in", (eb) =>
      eb
        .selectFrom("notification_recipients")
        .select("notification_id")
        .where("workspace_id", "=", scope.workspaceId)
        .where("organization_id", "=", scope.organizationId)
        .where("user_id", "=", userId),
    );
  }
  const ids = (await query.execute()).map((r) => r.id);
  const sizes = await deleteByIds(db, scope.workspaceId, scope.organizationId, ids);
  return { ids, sizes };
}

/** Returns the stored sizes of the notifications it deleted (what the delete itself removed). */
async function deleteByIds(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<number[]> {
  const sizes: number[] = [];
  for (const part of chunks(ids)) {
    // The notifications first: deleting them waits for a fan-out slice writing their inbox rows
    // (fan-out.ts locks the notification), so the inbox delete after it sees every row.
    const gone = await db
      .deleteFrom("notifications")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("id", "in", part)
      .returning((eb) => eb.fn<number>("octet_length", ["record"]).as("bytes"))
      .execute();
    for (const row of gone) sizes.push(row.bytes);
    await db
      .deleteFrom("notification_recipients")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("notification_id", "in", part)
      .execute();
  }
  return sizes;
}

/** The stored record of one notification, if it exists (a batch of the notification service appends to it). */
export async function findRecord(
  db: Readable,
  workspaceId: string,
  organizationId: string,
  id: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("notifications")
    .select("record")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("id", "=", id)
    .executeTakeFirst();
  return row?.record;
}

/** What `someInboxRows` does to the rows it takes: deletes them, or moves them off a document or location id. */
export type InboxChange =
  | { readonly delete: true; readonly where?: { readonly column: "location_id"; readonly value: string } }
  | {
      readonly delete: false;
      readonly column: "document_id" | "location_id";
      readonly from: string;
      readonly to: string | null;
    };

/**
 * Deletes or moves up to `batch` inbox rows of the notifications `ids` (a delete sweep, a
 * migration, a location rewrite); returns how many. A notification has up to 2 000, so those
 * steps take its rows a batch at a time and the notification once they are done.
 */
export async function someInboxRows(
  tx: WriteTx,
  scope: { readonly workspaceId: string; readonly organizationId: string },
  ids: readonly string[],
  change: InboxChange,
  batch: number,
): Promise<number> {
  const match = change.delete ? change.where : { column: change.column, value: change.from };
  const some = sql`select workspace_id, organization_id, notification_id, user_id from notification_recipients
    where workspace_id = ${scope.workspaceId} and organization_id = ${scope.organizationId}
      and notification_id in (${sql.join([...ids])})
      ${match ? sql`and ${sql.ref(match.column)} = ${match.value}` : sql``}
    limit ${sql.lit(batch)}`;
  const key = sql`(workspace_id, organization_id, notification_id, user_id) in (${some})`;
  const { rows } = change.delete
    ? await sql`delete from notification_recipients where ${key} returning 1 as one`.execute(tx)
    : await sql`update notification_recipients set ${sql.ref(change.column)} = ${change.to}
        where ${key} returning 1 as one`.execute(tx);
  return rows.length;
}
