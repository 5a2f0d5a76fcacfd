import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { ItemResult } from "../../http/schemas.js";
import {
  ActivityRecord,
  AddActivities,
  DeleteActivities,
  GetActivities,
  ItemResults,
  UpdateActivities,
} from "./schemas.js";
import * as service from "./service.js";

export const activityOperations = [
  operation({
    path: "/v2/activities/get",
    tag: "Activity logs",
    summary: "Get activity logs",
    description:
      "Activity records of one organization, filtered (AND; array filters match any value), ordered by " +
      '(timestamp, id), keyset-paged. `pageToken` is `""` on the last page.',
    data: GetActivities,
    result: Type.Array(ActivityRecord),
    list: true,
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
    tag: "Activity logs",
    summary: "Add activity logs",
    description:
      "Creates records for one document. A given `id` replaces an existing record whole (idempotent). " +
      "Requires the workspace's activity service (FAILED_PRECONDITION otherwise).",
    data: AddActivities,
    result: Type.Object({ success: Type.Boolean(), message: Type.String() }),
    handle: async (ctx, data) => {
      await service.addActivities(ctx, data);
      const message = "Activity(s) added successfully.";
      return { message, data: { success: true, message } };
    },
  }),
  operation({
    path: "/v2/activities/update",
    tag: "Activity logs",
    summary: "Update activity logs",
    description: "Merges the given fields into records of the organization; per-item results keyed by id.",
    data: UpdateActivities,
    result: ItemResults,
    handle: async (ctx, data) => ({
      message: "Activity(s) updated successfully.",
      data: await service.updateActivities(ctx, data),
    }),
  }),
  operation({
    path: "/v2/activities/delete",
    tag: "Activity logs",
    summary: "Delete activity logs (extension)",
    description:
      "Deletes records of an organization narrowed by `documentId`, `targetEntityId` and/or `activityIds` " +
      "(at least one). With `activityIds` the result is per id; otherwise `{deletedCount}`.",
    data: DeleteActivities,
    result: Type.Union([
      Type.Object({ deletedCount: Type.Integer() }),
      Type.Record(Type.String(), ItemResult),
    ]),
    handle: async (ctx, data) => ({
      message: "Activity(s) deleted successfully.",
      data: await service.deleteActivities(ctx, data),
    }),
  }),
];
