import type { Ctx } from "../../context.js";
import type { NotificationRecipientRow, NotificationRow } from "../../db/tables.js";
import { checkRecordSize } from "../../lib/bounds.js";
import { type NotificationRecord, recipientFields, uniqueUsers } from "./record.js";
import type { AddNotificationInput } from "./schemas.js";

/**
 * The rows of one notification and its recipients, as add writes them: shared by
 * notifications add and by the operations that notify as an effect (comments), which write
 * them in their own transaction through write.ts. The request's flags (`create…`,
 * `verifyUserPermissions`) are acted on by the caller and not stored.
 */
export function composeNotification(
  ctx: Pick<Ctx, "workspace" | "ids" | "clock" | "config">,
  input: AddNotificationInput,
  field = "data",
): { id: string; row: NotificationRow; recipients: NotificationRecipientRow[] } {
  const {
    organizationId,
    documentId,
    locationId,
    notificationId,
    notificationSource,
    notifyUsers,
    createOrganization: _createOrganization,
    createDocument: _createDocument,
    verifyUserPermissions: _verifyUserPermissions,
    notifyAll: _notifyAll,
    notificationSourceData,
    ...content
  } = input;
  const id = notificationId ?? ctx.ids();
  const now = ctx.clock.now();
  const users = uniqueUsers(notifyUsers ?? []);
  const record: NotificationRecord = {
    id,
    notificationSource: notificationSource ?? "custom",
    ...content,
    notificationSourceData: (notificationSourceData ?? {}) as Record<string, unknown>,
    ...recipientFields(users),
    readByUserIds: [],
    metadata: {
      apiKey: ctx.workspace.id,
      organizationId,
      ...(documentId !== undefined ? { documentId } : {}),
      ...(locationId !== undefined ? { locationId } : {}),
    },
    timestamp: now,
    lastUpdated: now,
  };
  const base = { workspace_id: ctx.workspace.id, organization_id: organizationId };
  const where = { document_id: documentId ?? null, location_id: locationId ?? null };
  const text = JSON.stringify(record);
  checkRecordSize(ctx.config, text, field);
  const row: NotificationRow = { ...base, id, ...where, timestamp: now, record: text };
  const recipients = users.map((user) => inboxRow(row, user.userId));
  return { id, row, recipients };
}

/** A user's unread inbox row of a stored notification: what add writes, and the fan-out job after it (fan-out.ts). */
export function inboxRow(
  notification: Pick<
    NotificationRow,
    "workspace_id" | "organization_id" | "id" | "timestamp" | "document_id" | "location_id"
  >,
  userId: string,
): NotificationRecipientRow {
  return {
    workspace_id: notification.workspace_id,
    organization_id: notification.organization_id,
    notification_id: notification.id,
    user_id: userId,
    timestamp: notification.timestamp,
    document_id: notification.document_id,
    location_id: notification.location_id,
    is_read: 0,
    in_for_you: 1,
  };
}
