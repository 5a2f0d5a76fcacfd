import { sql } from "kysely";
import type { WriteTx } from "../../db/handles.js";
import { lockedForUpdate } from "../../db/transactions.js";

export interface Where {
  readonly workspaceId: string;
  readonly organizationId: string;
  readonly documentId: string;
  /** The `location_id` the rows are stored under. */
  readonly locationKey: string;
}

/** The next `batch` threads of the document stored under the location id, after `after` in id order. */
export function threadsAt(
  tx: WriteTx,
  w: Where,
  after: string | null,
  batch: number,
): Promise<{ annotation_id: string; record: string }[]> {
  let query = tx
    .selectFrom("comment_annotations")
    .select(["annotation_id", "record"])
    .where("workspace_id", "=", w.workspaceId)
    .where("organization_id", "=", w.organizationId)
    .where("document_id", "=", w.documentId)
    .where("location_id", "=", w.locationKey);
  if (after !== null) query = query.where("annotation_id", ">", after);
  return query.orderBy("annotation_id").limit(batch).execute();
}

export async function rewriteThread(
  tx: WriteTx,
  w: Where,
  annotationId: string,
  record: string,
  locationKey: string | null,
): Promise<void> {
  await tx
    .updateTable("comment_annotations")
    .set({ record, location_id: locationKey })
    .where("workspace_id", "=", w.workspaceId)
    .where("organization_id", "=", w.organizationId)
    .where("annotation_id", "=", annotationId)
    .execute();
}

/** Deletes threads with the users they index (both counted by triggers). */
export async function deleteThreads(tx: WriteTx, w: Where, ids: readonly string[]): Promise<void> {
  for (const table of ["comment_annotation_users", "comment_annotations"] as const) {
    await tx
      .deleteFrom(table)
      .where("workspace_id", "=", w.workspaceId)
      .where("organization_id", "=", w.organizationId)
      .where("annotation_id", "in", [...ids])
      .execute();
  }
}

/**
 * Up to `batch` notifications of the document stored under the location id (any order: each
 * batch moves or deletes them), locked: a fan-out slice writing their inbox rows
 * (notifications/fan-out.ts) runs before or after the batch, not beside it.
 */
export function notificationsAt(
  tx: WriteTx,
  w: Where,
  batch: number,
): Promise<{ id: string; record: string }[]> {
  return lockedForUpdate(
    tx,
    tx
      .selectFrom("notifications")
      .select(["id", "record"])
      .where("workspace_id", "=", w.workspaceId)
      .where("organization_id", "=", w.organizationId)
      .where("document_id", "=", w.documentId)
      .where("location_id", "=", w.locationKey)
      .limit(batch),
  ).execute();
}

/** Sets the notifications' location id, on them and on their inbox rows, with their rewritten records. */
export async function relocateNotifications(
  tx: WriteTx,
  w: Where,
  rows: readonly { id: string; record: string }[],
  locationKey: string | null,
): Promise<void> {
  const ids = rows.map((row) => row.id);
  const records = sql<string>`case id ${sql.join(
    rows.map((row) => sql`when ${row.id} then ${row.record}`),
    sql` `,
  )} end`;
  await tx
    .updateTable("notifications")
    .set({ location_id: locationKey, record: records })
    .where("workspace_id", "=", w.workspaceId)
    .where("organization_id", "=", w.organizationId)
    .where("id", "in", ids)
    .execute();
  await tx
    .updateTable("notification_recipients")
    .set({ location_id: locationKey })
    .where("workspace_id", "=", w.workspaceId)
    .where("organization_id", "=", w.organizationId)
    .where("notification_id", "in", ids)
    .execute();
}

/** Deletes notifications with their inbox rows; returns the deleted records' stored sizes. */
export async function deleteNotifications(tx: WriteTx, w: Where, ids: readonly string[]): Promise<number[]> {
  // The notifications first, then their inbox rows: a fan-out slice locks the notification (notifications/fan-out.ts).
  const rows = await tx
    .deleteFrom("notifications")
    .where("workspace_id", "=", w.workspaceId)
    .where("organization_id", "=", w.organizationId)
    .where("id", "in", [...ids])
    .returning((eb) => eb.fn<number>("octet_length", ["record"]).as("bytes"))
    .execute();
  await tx
    .deleteFrom("notification_recipients")
    .where("workspace_id", "=", w.workspaceId)
    .where("organization_id", "=", w.organizationId)
    .where("notification_id", "in", [...ids])
    .execute();
  return rows.map((row) => Number(row.bytes));
}
