import type { Ctx } from "../../context.js";
import { RUNS_ALONE } from "../../db/group-commit.js";
import { type ErrorDetail, invalidArgument } from "../../errors.js";
import { pageBounds } from "../../lib/bounds.js";
import { deletedItems } from "../../lib/outcomes.js";
import { nextPageToken, openTimeSortKey } from "../../lib/paging.js";
import { deleteDelta } from "../../quotas/by-verbs.js";
import { recordsChanged } from "../../records/effects.js";
import { usersWithDocumentAccess } from "../access/check.js";
import { ensureDocument } from "../hierarchy/documents.js";
import { ensureOrganization } from "../hierarchy/organizations.js";
import { userFiller } from "../users/enrich.js";
import { organizationRecipients } from "../users/store.js";
import { composeNotification } from "./compose.js";
import { uniqueUsers } from "./record.js";
import type { AddNotificationInput, DeleteNotificationsInput, GetNotificationsInput } from "./schemas.js";
import { checkScope, needsDocument, requireUserFor } from "./scope.js";
import * as store from "./store.js";
import { writeNotification } from "./write.js";

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
 * Creates one notification for its recipients (docs/contract.md "Notifications"). A given `notificationId`
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
  const { organizationId, documentId, createOrganization, createDocument, verifyUserPermissions } = input;
  const workspaceId = ctx.workspace.id;
  const named = uniqueUsers(input.notifyUsers ?? []);
  return ctx.write(async (trx) => {
    // Two requests writing one new client-chosen id run one after the other, the second replacing.
    if (input.notificationId !== undefined)
      await store.lockNotificationId(trx, workspaceId, organizationId, input.notificationId);
    const now = ctx.clock.now();
    // By default the organization-level users (docs/contract.md "Notifications", "Users") are recipients too.
    const everyone =
      input.notifyAll === false ? [] : await organizationRecipients(trx, workspaceId, organizationId);
    const given = uniqueUsers([...named, ...everyone]);
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
      const dropped = (input.notifyUsers ?? []).flatMap((user, index) =>
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
    const actionUser = input.actionUser;
    const fill = await userFiller(trx, workspaceId, organizationId, [actionUser]);
    const {
      id,
      row,
      recipients: recipientRows,
    } = composeNotification(ctx, {
      ...input,
      ...(actionUser ? { actionUser: fill(actionUser) } : {}),
      notifyUsers: recipients,
    });
    await writeNotification(trx, ctx, row, recipientRows, new Set(named.map((user) => user.userId)));
    return details ? { id, details } : { id };
  }, 1 + named.length);
}

export interface NotificationPage {
  /** Serialized records, spliced into the response as they are stored. */
  readonly records: string[];
  readonly pageToken: string;
}

/**
 * Lists notifications of an organization narrowed by document, location, user and ids,
 * newest first unless `order` is asc (docs/contract.md "Lists and page tokens"). With a user, `unreadOnly` keeps what
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
  const after = openTimeSortKey(ctx, query, pageToken);
  const scope = { ...scopeOf(ctx, input), visibleAt: ctx.clock.now() };
  const page = await store.listNotifications(ctx.reader, scope, view, order, after, bounds);
  return {
    records: page.records,
    pageToken: nextPageToken(ctx, query, page.next),
  };
}

/** Per-item outcomes keyed by notification id, and how many went (docs/contract.md "Notifications"). */
export interface DeleteOutcome {
  readonly items: Record<string, ItemOutcome>;
  readonly deletedCount: number;
}

/**
 * Deletes whole notifications (with their recipients) of an organization narrowed by
 * document, location, user and/or ids; at least one of them, so an organization is never
 * emptied by an under-specified request (docs/compatibility.md "D10"). Every deleted notification answers
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
  const deleted = await ctx.write(async (trx) => {
    const { ids, sizes } = await store.deleteNotifications(trx, scopeOf(ctx, input));
    await recordsChanged(trx, {
      workspaceId: ctx.workspace.id,
      organizationId: input.organizationId,
      kind: "notification",
      recordIds: ids,
      usage: deleteDelta(sizes),
      now: ctx.clock.now(),
    });
    return ids;
  }, input.notificationIds?.length ?? RUNS_ALONE);
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
