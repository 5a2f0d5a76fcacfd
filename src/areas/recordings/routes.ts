import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import {
  AddRecordings,
  DeleteRecordings,
  GetRecordings,
  RecordingItemResults,
  RecordingRecord,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "Recordings";

export const recordingOperations = [
  operation({
    path: "/v2/recordings/get",
    tag: TAG,
    summary: "Get recordings",
    description:
      "Recording annotations of an organization, optionally of one document or only `recordingIds`, newest first, " +
      'keyset-paged. `pageToken` is `""` on the last page.',
    data: GetRecordings,
    result: Type.Array(RecordingRecord),
    list: true,
    handle: async (ctx, data) => {
      const page = await service.getRecordings(ctx, data);
      return {
        message: "Recorder annotations retrieved successfully.",
        data: null,
        rawData: `[${page.records.join(",")}]`,
        pageToken: page.pageToken,
      };
    },
  }),
  operation({
    path: "/v2/recordings/add",
    tag: TAG,
    summary: "Add recordings (extension)",
    description:
      "Creates or replaces (by `annotationId`) recording annotations of one document. `recordedTime.duration` is " +
      "in milliseconds; `recordedTime.display` (`HH:MM:SS`) is derived from it when omitted.",
    data: AddRecordings,
    result: Type.Object({ success: Type.Boolean(), message: Type.String() }),
    handle: async (ctx, data) => {
      await service.addRecordings(ctx, data);
      const message = "Recording(s) added successfully.";
      return { message, data: { success: true, message } };
    },
  }),
  operation({
    path: "/v2/recordings/delete",
    tag: TAG,
    summary: "Delete recordings (extension)",
    description:
      "Deletes recordings of an organization narrowed by `documentId` and/or `recordingIds` (at least one). With " +
      "`recordingIds` the result is per id; otherwise `{deletedCount}`.",
    data: DeleteRecordings,
    result: Type.Union([Type.Object({ deletedCount: Type.Integer() }), RecordingItemResults]),
    handle: async (ctx, data) => ({
      message: "Recording(s) deleted successfully.",
      data: await service.deleteRecordings(ctx, data),
    }),
  }),
];
