import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { Closed, DELETED_COUNT, ERROR_DETAIL_REF, named } from "../../http/schemas.js";
import {
  AddNotification,
  DeleteNotifications,
  GetNotifications,
  NotificationDeleteResult,
  NotificationItemResults,
  NotificationRecord,
  UpdateNotifications,
} from "./schemas.js";
import * as service from "./service.js";
import { updateNotifications } from "./update.js";

export const notificationOperations = [
  operation({
    path: "/v2/notifications/add",
    operationId: "notificationsAdd",
    tag: "Notifications",
    summary: "Add a notification",
    description:
      "Creates one notification in an organization, optionally narrowed to a document and a location, for " +
      "the `notifyUsers` recipients. Without `notificationId` the service generates one; an existing id is " +
      "replaced whole. `createOrganization` / `createDocument` create missing records (the document at the " +
      "root); `verifyUserPermissions` keeps only recipients with access to the document and lists the " +
      "others in `data.details`. `displayHeadlineMessageTemplate` is required unless " +
      "`isNotificationResolverUsed` is true. `result.data.id` is the notification's id.",
    data: AddNotification,
    result: named(
      "NotificationAdded",
      Closed(
        {
          success: Type.Boolean(),
          message: Type.String(),
          id: Type.String({ description: "The notification's id." }),
          details: Type.Optional(
            Type.Array(Type.Unsafe<{ field?: string; id?: string; message: string }>(ERROR_DETAIL_REF), {
              description: "With verifyUserPermissions: the recipients dropped for lack of access.",
            }),
          ),
        },
        "The notification was added.",
      ),
    ),
    example: {
      data: {
        organizationId: "org-1",
        documentId: "doc-1",
        notificationId: "n-1",
        actionUser: { userId: "u1", name: "Ada" },
        displayHeadlineMessageTemplate: "{actionUser} mentioned you",
        displayHeadlineMessageTemplateData: {
          actionUser: { userId: "u1", name: "Ada" },
          recipientUser: "u2",
        },
        displayBodyMessage: "Can you check the totals?",
        notifyUsers: [{ userId: "u2" }, { userId: "u3", email: "u3@example.com" }],
        notificationSourceData: { commentId: "c-7" },
        notificationSource: "comment",
        context: { access: { team: "finance", level: 2 }, anyKey: "kept" },
      },
      message: "Notification added successfully.",
      result: { success: true, message: "Notification added successfully.", id: "n-1" },
    },
    handle: async (ctx, data) => {
      const added = await service.addNotification(ctx, data);
      const message = "Notification added successfully.";
      return { message, data: { success: true, message, ...added } };
    },
  }),
  operation({
    path: "/v2/notifications/get",
    operationId: "notificationsGet",
    tag: "Notifications",
    summary: "Get notifications",
    description:
      "Notifications of one organization, filtered by document, location, recipient `userId` and ids " +
      "(AND), ordered by (timestamp, id), keyset-paged. `notifyUsers` and `notifyUsersByUserId` map each " +
      "recipient's id to true; `notifyUserObjects` holds their User objects. With `userId`: each record " +
      "carries that user's `isUnread` and `forYou`; `unreadOnly` keeps what the user has not read, " +
      '`forYou` the user\'s For You list. `pageToken` is `""` on the last page.',
    data: GetNotifications,
    result: Type.Array(NotificationRecord),
    example: {
      data: { organizationId: "org-1", userId: "u2", forYou: true, pageSize: 50 },
      message: "Notification(s) retrieved successfully.",
      result: [
        {
          id: "n-1",
          notificationSource: "comment",
          actionUser: { userId: "u1", name: "Ada" },
          displayHeadlineMessageTemplate: "{actionUser} mentioned you",
          displayHeadlineMessageTemplateData: {
            actionUser: { userId: "u1", name: "Ada" },
            recipientUser: "u2",
          },
          displayBodyMessage: "Can you check the totals?",
          notificationSourceData: { commentId: "c-7" },
          context: { access: { team: "finance", level: 2 }, anyKey: "kept" },
          notifyUsers: { u2: true, u3: true },
          notifyUsersByUserId: { u2: true, u3: true },
          notifyUserObjects: [{ userId: "u2" }, { userId: "u3", email: "u3@example.com" }],
          readByUserIds: [],
          metadata: { apiKey: "ak_example", organizationId: "org-1", documentId: "doc-1" },
          timestamp: 1767225600000,
          lastUpdated: 1767225600000,
          isUnread: true,
          forYou: true,
        },
      ],
      pageToken: "",
    },
    list: true,
    handle: async (ctx, data) => {
      const page = await service.getNotifications(ctx, data);
      return {
        message: "Notification(s) retrieved successfully.",
        data: null,
        rawData: `[${page.records.join(",")}]`,
        pageToken: page.pageToken,
      };
    },
  }),
  operation({
    path: "/v2/notifications/update",
    operationId: "notificationsUpdate",
    tag: "Notifications",
    summary: "Update notifications",
    description:
      "Merges fields into notifications of the scope (organization, narrowed by `documentId`, `locationId`, " +
      "`userId`); `verifyUserPermissions` needs `documentId`. Per-item results keyed by id; " +
      "an item outside the scope fails alone. `readByUserIds` marks read; with `verifyUserPermissions` only " +
      "users with access to the document are marked and the others are listed in the item's `details`.",
    data: UpdateNotifications,
    result: NotificationItemResults,
    example: {
      data: {
        organizationId: "org-1",
        documentId: "doc-1",
        verifyUserPermissions: true,
        notifications: [
          { id: "n-1", readByUserIds: ["u2", "stranger"], persistReadForUsers: true },
          { id: "n-other-doc", displayBodyMessage: "edited" },
        ],
      },
      message: "Notification(s) updated successfully.",
      result: {
        "n-1": {
          success: true,
          message: "Notification updated.",
          details: [
            {
              field: "data.notifications[0].readByUserIds",
              id: "stranger",
              message: "User has no access to the document; not marked read.",
            },
          ],
        },
        "n-other-doc": { success: false, message: "Failed to update notification." },
      },
    },
    handle: async (ctx, data) => ({
      message: "Notification(s) updated successfully.",
      data: await updateNotifications(ctx, data),
    }),
  }),
  operation({
    path: "/v2/notifications/delete",
    operationId: "notificationsDelete",
    tag: "Notifications",
    summary: "Delete notifications",
    description:
      "Deletes notifications of an organization narrowed by `documentId`, `locationId`, recipient `userId` " +
      "and/or `notificationIds` (at least one; AND). `data` is per id in every shape: each deleted " +
      "notification `Notification deleted.`, each `notificationIds` entry not deleted " +
      "`Failed to delete notification.`; `result.deletedCount` counts them.",
    data: DeleteNotifications,
    result: NotificationDeleteResult,
    resultExtras: { deletedCount: Type.Optional(DELETED_COUNT) },
    example: {
      data: { organizationId: "org-1", notificationIds: ["n-1"] },
      message: "Notification(s) deleted successfully.",
      result: { "n-1": { success: true, message: "Notification deleted." } },
      resultExtras: { deletedCount: 1 },
    },
    handle: async (ctx, data) => {
      const { items, deletedCount } = await service.deleteNotifications(ctx, data);
      return {
        message: "Notification(s) deleted successfully.",
        data: items,
        resultExtras: { deletedCount },
      };
    },
  }),
];
