import type { Ctx } from "../../context.js";
import { RUNS_ALONE } from "../../db/group-commit.js";
import type { NotificationRecipientRow, NotificationRow } from "../../db/tables.js";
import { invalidArgument } from "../../errors.js";
import { checkRecordSize, pageBounds } from "../../lib/bounds.js";
import { outcomesById } from "../../lib/outcomes.js";
import { nextPageToken, toTimeSortKey } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import { organizationRecipients } from "../users/store.js";
import { type NotificationRecord, uniqueUsers } from "./record.js";
import type { AddNotificationInput, DeleteNotificationsInput, GetNotificationsInput } from "./schemas.js";
import { checkScope, requireUserFor } from "./scope.js";
import * as store from "./store.js";

export interface ItemOutcome {
  readonly success: boolean;
  readonly message: string;
  readonly details?: unknown;
}

/**
 * Creates one notification for its recipients (extension, DESIGN §5). A given
 * `notificationId` replaces an existing notification whole, recipients and read state
 * included, so a retried add never makes a duplicate. Returns the id.
 */
export async function addNotification(ctx: Ctx, input: AddNotificationInput): Promise<string> {
  checkScope(input);
  const {
    organizationId,
    documentId,
    locationId,
    notificationId,
    notificationSource,
    notifyUsers,
    notifyAll,
    ...content
  } = input;
  const id = notificationId ?? ctx.ids();
  const now = ctx.clock.now();
  // COMPAT §A.6: by default the organization-level users (§C.4) are recipients too.
  const everyone =
    notifyAll === false ? [] : await organizationRecipients(ctx.reader, ctx.workspace.id, organizationId);
  const recipients = uniqueUsers([...(notifyUsers ?? []), ...everyone]);
  const record: NotificationRecord = {
    id,
    notificationSource: notificationSource ?? "custom",
    ...content,
    notifyUsers: recipients,
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
  checkRecordSize(ctx.config, text, "data");
  const row: NotificationRow = { ...base, id, ...where, timestamp: now, record: text };
  const recipientRows = recipients.map(
    (user): NotificationRecipientRow => ({
      ...base,
      notification_id: id,
      user_id: user.userId,
      timestamp: now,
      ...where,
      is_read: 0,
      in_for_you: 1,
    }),
  );
  await ctx.write(async (trx) => {
    await store.replaceNotification(trx, row, recipientRows);
    await checkQuotas(trx, ctx);
  }, 1 + recipientRows.length);
  return id;
}

export interface NotificationPage {
  /** Serialized records, spliced into the response as they are stored. */
  readonly records: string[];
  readonly pageToken: string;
}

/**
 * Lists notifications of an organization narrowed by document, location, user and ids,
 * newest first unless `order` is asc (DESIGN §4). With a user, `unreadOnly` keeps what
 * the user has not read and `forYou` the user's For You list.
 */
export async function getNotifications(ctx: Ctx, input: GetNotificationsInput): Promise<NotificationPage> {
  checkScope(input);
  if (input.unreadOnly === true) requireUserFor("data.unreadOnly", input);
  if (input.forYou === true) requireUserFor("data.forYou", input);
  const order = input.order ?? "desc";
  const bounds = pageBounds(ctx.config, input.pageSize);
  const view: store.UserView = input.unreadOnly ? "unread" : input.forYou ? "forYou" : "all";
  const { pageToken, ...rest } = input;
  const query = { ...rest, order, pageSize: bounds.limit };
  const after = pageToken
    ? toTimeSortKey(ctx.pageTokens.open(ctx.workspace.id, query, pageToken, ctx.clock.now()))
    : null;
  const page = await store.listNotifications(ctx.reader, scopeOf(ctx, input), view, order, after, bounds);
  return {
    records: page.records,
    pageToken: nextPageToken(ctx, query, page.next),
  };
}

export type DeleteOutcome = { deletedCount: number } | Record<string, ItemOutcome>;

/**
 * Deletes whole notifications (with their recipients) of an organization narrowed by
 * document, location, user and/or ids; at least one of documentId, userId and
 * notificationIds, so an organization is never emptied by an under-specified request.
 */
export async function deleteNotifications(ctx: Ctx, input: DeleteNotificationsInput): Promise<DeleteOutcome> {
  checkScope(input);
  if (input.documentId === undefined && input.userId === undefined && input.notificationIds === undefined) {
    throw invalidArgument("Provide at least one of data.documentId, data.userId or data.notificationIds.", [
      { field: "data", message: "At least one of documentId, userId or notificationIds is required." },
    ]);
  }
  const deleted = await ctx.write(
    (trx) => store.deleteNotifications(trx, scopeOf(ctx, input)),
    input.notificationIds?.length ?? RUNS_ALONE,
  );
  if (!input.notificationIds) return { deletedCount: deleted.length };
  const gone = new Set(deleted);
  return outcomesById(input.notificationIds, gone, "Notification deleted.", "Failed to delete notification.");
}

function scopeOf(
  ctx: Ctx,
  input: {
    organizationId: string;
    documentId?: string;
    locationId?: string;
    userId?: string;
    notificationIds?: string[];
  },
): store.NotificationScope {
  return {
    workspaceId: ctx.workspace.id,
    organizationId: input.organizationId,
    ...(input.documentId !== undefined ? { documentId: input.documentId } : {}),
    ...(input.locationId !== undefined ? { locationId: input.locationId } : {}),
    ...(input.userId !== undefined ? { userId: input.userId } : {}),
    ...(input.notificationIds !== undefined ? { ids: input.notificationIds } : {}),
  };
}
