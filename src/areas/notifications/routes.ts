import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { ItemResult } from "../../http/schemas.js";
import {
  AddNotification,
  DeleteNotifications,
  GetNotifications,
  NotificationRecord,
  UpdateNotifications,
} from "./schemas.js";
import * as service from "./service.js";
import { updateNotifications } from "./update.js";

const ItemResults = Type.Record(Type.String(), ItemResult, { description: "Keyed by notification id." });

export const notificationOperations = [
  operation({
    path: "/v2/notifications/add",
    tag: "Notifications",
    summary: "Add a notification (extension)",
    description:
      "Creates one notification in an organization, optionally narrowed to a document and a location, for " +
      "the `notifyUsers` recipients. Without `notificationId` the service generates one; an existing id is " +
      "replaced whole. `result.data.id` is the notification's id.",
    data: AddNotification,
    result: Type.Object({ success: Type.Boolean(), message: Type.String(), id: Type.String() }),
    handle: async (ctx, data) => {
      const id = await service.addNotification(ctx, data);
      const message = "Notification added successfully.";
      return { message, data: { success: true, message, id } };
    },
  }),
  operation({
    path: "/v2/notifications/get",
    tag: "Notifications",
    summary: "Get notifications (extension)",
    description:
      "Notifications of one organization, filtered by document, location, recipient `userId` and ids " +
      "(AND), ordered by (timestamp, id), keyset-paged. With `userId`: `unreadOnly` keeps what the user " +
      'has not read, `forYou` the user\'s For You list. `pageToken` is `""` on the last page.',
    data: GetNotifications,
    result: Type.Array(NotificationRecord),
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
    tag: "Notifications",
    summary: "Update notifications",
    description:
      "Merges fields into notifications of the scope (organization, narrowed by `documentId`, `locationId`, " +
      "`userId`); `locationId` and `verifyUserPermissions` need `documentId`. Per-item results keyed by id; " +
      "an item outside the scope fails alone. `readByUserIds` marks read; with `verifyUserPermissions` only " +
      "users with access to the document are marked and the others are listed in the item's `details`.",
    data: UpdateNotifications,
    result: ItemResults,
    handle: async (ctx, data) => ({
      message: "Notification(s) updated successfully.",
      data: await updateNotifications(ctx, data),
    }),
  }),
  operation({
    path: "/v2/notifications/delete",
    tag: "Notifications",
    summary: "Delete notifications (extension)",
    description:
      "Deletes notifications of an organization narrowed by `documentId` (and `locationId`), recipient " +
      "`userId` and/or `notificationIds` (at least one of documentId, userId, notificationIds). With " +
      "`notificationIds` the result is per id; otherwise `{deletedCount}`.",
    data: DeleteNotifications,
    result: Type.Union([Type.Object({ deletedCount: Type.Integer() }), ItemResults]),
    handle: async (ctx, data) => ({
      message: "Notification(s) deleted successfully.",
      data: await service.deleteNotifications(ctx, data),
    }),
  }),
];
