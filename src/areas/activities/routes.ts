import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { Acknowledgement, DELETED_COUNT } from "../../http/schemas.js";
import {
  ActivityDeleteResult,
  ActivityItemResults,
  ActivityRecord,
  AddActivities,
  DeleteActivities,
  GetActivities,
  UpdateActivities,
} from "./schemas.js";
import * as service from "./service.js";

export const activityOperations = [
  operation({
    path: "/v2/activities/get",
    operationId: "activitiesGet",
    tag: "Activity logs",
    summary: "Get activity logs",
    description:
      "Activity records of one organization, filtered (AND; array filters match any value), ordered by " +
      '(timestamp, id), keyset-paged. `pageToken` is `""` on the last page.',
    data: GetActivities,
    result: Type.Array(ActivityRecord),
    list: true,
    example: {
      data: { organizationId: "org-1", documentId: "doc-1", actionTypes: ["statusChanged"], pageSize: 20 },
      message: "Activity(s) retrieved successfully.",
      result: [
        {
          id: "status-42",
          featureType: "custom",
          actionType: "statusChanged",
          actionUser: { userId: "u2" },
          targetEntityId: "task-42",
          changes: { status: { from: "open", to: "done" } },
          metadata: { apiKey: "ak_example", documentId: "doc-1", organizationId: "org-1" },
          timestamp: 1767225600000,
        },
      ],
      pageToken: "",
    },
    handle: async (ctx, data) => {
      const page = await service.getActivities(ctx, data);
      return {
        message: "Activity(s) retrieved successfully.",
        data: null,
        rawData: `[${page.records.join(",")}]`,
        pageToken: page.pageToken,
      };
    },
  }),
  operation({
    path: "/v2/activities/add",
    operationId: "activitiesAdd",
    tag: "Activity logs",
    summary: "Add activity logs",
    description:
      "Creates records for one document. A given `id` replaces an existing record whole (idempotent). " +
      "Requires the workspace's activity service (FAILED_PRECONDITION otherwise).",
    data: AddActivities,
    result: Acknowledgement,
    example: {
      data: {
        organizationId: "org-1",
        documentId: "doc-1",
        activities: [
          {
            featureType: "comment",
            actionType: "comment.add",
            actionUser: { userId: "u1", name: "Ada", email: "ada@example.com" },
            targetEntityId: "annotation-1",
            displayMessageTemplate: "{{user.name}} commented",
            displayMessageTemplateData: { user: { userId: "u1", name: "Ada" } },
          },
          {
            id: "status-42",
            featureType: "custom",
            actionType: "statusChanged",
            actionUser: { userId: "u2" },
            targetEntityId: "task-42",
            changes: { status: { from: "open", to: "done" } },
          },
        ],
      },
      message: "Activity(s) added successfully.",
      result: { success: true, message: "Activity(s) added successfully." },
    },
    handle: async (ctx, data) => {
      await service.addActivities(ctx, data);
      const message = "Activity(s) added successfully.";
      return { message, data: { success: true, message } };
    },
  }),
  operation({
    path: "/v2/activities/update",
    operationId: "activitiesUpdate",
    tag: "Activity logs",
    summary: "Update activity logs",
    description: "Merges the given fields into records of the organization; per-item results keyed by id.",
    data: UpdateActivities,
    result: ActivityItemResults,
    example: {
      data: {
        organizationId: "org-1",
        activities: [
          {
            id: "status-42",
            displayMessageTemplate: "Status is now {{status}}",
            displayMessageTemplateData: { status: "done" },
          },
        ],
      },
      message: "Activity(s) updated successfully.",
      result: { "status-42": { success: true, message: "Activity updated." } },
    },
    handle: async (ctx, data) => ({
      message: "Activity(s) updated successfully.",
      data: await service.updateActivities(ctx, data),
    }),
  }),
  operation({
    path: "/v2/activities/delete",
    operationId: "activitiesDelete",
    tag: "Activity logs",
    summary: "Delete activity logs",
    description:
      "Deletes records of an organization narrowed by `documentId`, `targetEntityId` and/or `activityIds` " +
      "(at least one; AND). `data` is per id in every shape: each deleted record `Activity deleted.`, each " +
      "`activityIds` entry not deleted `Failed to delete activity.`; `result.deletedCount` counts them.",
    data: DeleteActivities,
    result: ActivityDeleteResult,
    resultExtras: { deletedCount: Type.Optional(DELETED_COUNT) },
    example: {
      data: { organizationId: "org-1", activityIds: ["status-42"] },
      message: "Activity(s) deleted successfully.",
      result: { "status-42": { success: true, message: "Activity deleted." } },
      resultExtras: { deletedCount: 1 },
    },
    handle: async (ctx, data) => {
      const { items, deletedCount } = await service.deleteActivities(ctx, data);
      return { message: "Activity(s) deleted successfully.", data: items, resultExtras: { deletedCount } };
    },
  }),
];
