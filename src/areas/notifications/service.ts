import type { Ctx } from "../../context.js";
import { RUNS_ALONE } from "../../db/group-commit.js";
import type { NotificationRecipientRow, NotificationRow } from "../../db/tables.js";
import { type ErrorDetail, invalidArgument } from "../../errors.js";
import { checkRecordSize, pageBounds } from "../../lib/bounds.js";
import { deletedItems } from "../../lib/outcomes.js";
import { nextPageToken, toTimeSortKey } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import { usersWithDocumentAccess } from "../access/check.js";
import { ensureDocument } from "../hierarchy/documents.js";
import { ensureOrganization } from "../hierarchy/organizations.js";
import { type NotificationRecord, recipientFields, uniqueUsers } from "./record.js";
import type { AddNotificationInput, DeleteNotificationsInput, GetNotificationsInput } from "./schemas.js";
import { checkScope, needsDocument, requireUserFor } from "./scope.js";
import * as store from "./store.js";

export interface ItemOutcome {
  readonly success: boolean;
  readonly message: string;
  readonly details?: unknown;
}

/** What an add answers beside its message: the id, and the recipients dropped for lack of access. */
export interface AddedNotification {
  readonly id: string;
  readonly details?: ErrorDetail[];
}

/**
 * Creates one notification for its recipients (COMPAT §A.6). A given `notificationId`
 * replaces an existing notification whole, recipients and read state included, so a
 * retried add never makes a duplicate. `createOrganization` / `createDocument` create the
 * missing records first; `verifyUserPermissions` keeps only recipients with access to the
 * document (the A.7 rule, access/check.ts) and lists the others in `details`.
 */
export async function addNotification(ctx: Ctx, input: AddNotificationInput): Promise<AddedNotification> {
  checkScope(input);
  if (input.createDocument === true && input.documentId === undefined)
    throw needsDocument("data.createDocument");
  if (input.isNotificationResolverUsed !== true && input.displayHeadlineMessageTemplate === undefined) {
    const field = "data.displayHeadlineMessageTemplate";
    throw invalidArgument(`Missing required field ${field}.`, [
      { field, message: "Required unless isNotificationResolverUsed is true." },
    ]);
  }
  const {
    organizationId,
    documentId,
    locationId,
    notificationId,
    notificationSource,
    notifyUsers,
    createOrganization,
    createDocument,
    verifyUserPermissions,
    notificationSourceData,
    ...content
  } = input;
  const id = notificationId ?? ctx.ids();
  const now = ctx.clock.now();
  const workspaceId = ctx.workspace.id;
  const given = uniqueUsers(notifyUsers ?? []);
  const base = { workspace_id: workspaceId, organization_id: organizationId };
  const where = { document_id: documentId ?? null, location_id: locationId ?? null };
  return ctx.write(async (trx) => {
    if (createOrganization === true || createDocument === true)
      await ensureOrganization(trx, workspaceId, organizationId, now);
    if (createDocument === true && documentId !== undefined)
      await ensureDocument(trx, workspaceId, organizationId, documentId, now);
    let recipients = given;
    let details: ErrorDetail[] | undefined;
    if (verifyUserPermissions === true && documentId !== undefined) {
      const allowed = await usersWithDocumentAccess(
        trx,
        workspaceId,
        organizationId,
        documentId,
        given.map((user) => user.userId),
        now,
      );
      recipients = given.filter((user) => allowed.has(user.userId));
      const dropped = (notifyUsers ?? []).flatMap((user, index) =>
        allowed.has(user.userId) ? [] : [{ index, userId: user.userId }],
      );
      if (dropped.length > 0) {
        details = dropped.map(({ index, userId }) => ({
          field: `data.notifyUsers[${index}]`,
          id: userId,
          message: "User has no access to the document; not notified.",
        }));
      }
    }
    const record: NotificationRecord = {
      id,
      notificationSource: notificationSource ?? "custom",
      ...content,
      notificationSourceData: (notificationSourceData ?? {}) as Record<string, unknown>,
      ...recipientFields(recipients),
      readByUserIds: [],
      metadata: {
        apiKey: workspaceId,
        organizationId,
        ...(documentId !== undefined ? { documentId } : {}),
        ...(locationId !== undefined ? { locationId } : {}),
      },
      timestamp: now,
      lastUpdated: now,
    };
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
    await store.replaceNotification(trx, row, recipientRows);
    await checkQuotas(trx, ctx);
    return details ? { id, details } : { id };
  }, 1 + given.length);
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

/** Per-item outcomes keyed by notification id, and how many went (COMPAT §A.6). */
export interface DeleteOutcome {
  readonly items: Record<string, ItemOutcome>;
  readonly deletedCount: number;
}

/**
 * Deletes whole notifications (with their recipients) of an organization narrowed by
 * document, location, user and/or ids; at least one of them, so an organization is never
 * emptied by an under-specified request (COMPAT §E.10). Every deleted notification answers
 * `Notification deleted.`; a `notificationIds` entry not deleted `Failed to delete notification.`.
 */
export async function deleteNotifications(ctx: Ctx, input: DeleteNotificationsInput): Promise<DeleteOutcome> {
  checkScope(input);
  if (
    input.documentId === undefined &&
    input.locationId === undefined &&
    input.userId === undefined &&
    input.notificationIds === undefined
  ) {
    throw invalidArgument(
      "Provide at least one of data.documentId, data.locationId, data.userId or data.notificationIds.",
      [
        {
          field: "data",
          message: "At least one of documentId, locationId, userId or notificationIds is required.",
        },
      ],
    );
  }
  const deleted = await ctx.write(
    (trx) => store.deleteNotifications(trx, scopeOf(ctx, input)),
    input.notificationIds?.length ?? RUNS_ALONE,
  );
  const items = deletedItems(
    deleted,
    input.notificationIds,
    "Notification deleted.",
    "Failed to delete notification.",
  );
  return { items, deletedCount: deleted.length };
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
