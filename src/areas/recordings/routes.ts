import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { Acknowledgement } from "../../http/schemas.js";
import {
  AddRecordings,
  DeleteRecordings,
  GetRecordings,
  RecordingDeleteResult,
  RecordingRecord,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "Recordings";

const EXAMPLE_ATTACHMENT = {
  attachmentId: 1,
  url: "https://files.example.com/rec-1.mp4",
  mimeType: "video/mp4",
  name: "rec-1.mp4",
  type: "mp4",
  size: 7340032,
};

const EXAMPLE_FROM = { userId: "u1", name: "Ada" };
const EXAMPLE_TRANSCRIPTION = {
  transcriptSegments: [
    {
      startTime: "00:00:00",
      endTime: "00:00:04",
      startTimeInSeconds: 0,
      endTimeInSeconds: 4,
      text: "Here is the new dashboard.",
    },
  ],
  contentSummary: "A tour of the dashboard.",
};

export const recordingOperations = [
  operation({
    path: "/v2/recordings/get",
    operationId: "recordingsGet",
    tag: TAG,
    summary: "Get recordings",
    description:
      "Recording annotations of an organization, optionally of one document or only `recordingIds`, newest first, " +
      'keyset-paged. `pageToken` is `""` on the last page.',
    data: GetRecordings,
    result: Type.Array(RecordingRecord),
    example: {
      data: { organizationId: "org-1", documentId: "doc-1", pageSize: 20 },
      message: "Recorder annotations retrieved successfully.",
      result: [
        {
          type: "recorder",
          recordingType: "screen",
          mode: "floating",
          metadata: { apiKey: "ak_example", documentId: "doc-1", organizationId: "org-1" },
          recordedTime: { duration: 83500, display: "00:01:24" },
          displayName: "Walkthrough",
          annotationId: "rec-1",
          attachments: [EXAMPLE_ATTACHMENT],
          latestVersion: 1,
          from: EXAMPLE_FROM,
          transcription: EXAMPLE_TRANSCRIPTION,
        },
      ],
      pageToken: "",
    },
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
    operationId: "recordingsAdd",
    tag: TAG,
    summary: "Add recordings (extension)",
    description:
      "Creates or replaces (by `annotationId`) recording annotations of one document. `recordedTime.duration` is " +
      "in milliseconds; `recordedTime.display` (`HH:MM:SS`) is derived from it when omitted. Optional `from` " +
      "(User) and `transcription` are stored, returned by get and sent with the `recorder.done` webhook.",
    data: AddRecordings,
    result: Acknowledgement,
    example: {
      data: {
        organizationId: "org-1",
        documentId: "doc-1",
        recordings: [
          {
            annotationId: "rec-1",
            recordingType: "screen",
            displayName: "Walkthrough",
            recordedTime: { duration: 83500 },
            attachments: [EXAMPLE_ATTACHMENT],
            from: EXAMPLE_FROM,
            transcription: EXAMPLE_TRANSCRIPTION,
          },
        ],
      },
      message: "Recording(s) added successfully.",
      result: { success: true, message: "Recording(s) added successfully." },
    },
    handle: async (ctx, data) => {
      await service.addRecordings(ctx, data);
      const message = "Recording(s) added successfully.";
      return { message, data: { success: true, message } };
    },
  }),
  operation({
    path: "/v2/recordings/delete",
    operationId: "recordingsDelete",
    tag: TAG,
    summary: "Delete recordings (extension)",
    description:
      "Deletes recordings of an organization narrowed by `documentId` and/or `recordingIds` (at least one). With " +
      "`recordingIds` the result is per id; otherwise `{deletedCount}`.",
    data: DeleteRecordings,
    result: RecordingDeleteResult,
    example: {
      data: { organizationId: "org-1", recordingIds: ["rec-1"] },
      message: "Recording(s) deleted successfully.",
      result: { "rec-1": { success: true, message: "Recording deleted." } },
    },
    handle: async (ctx, data) => ({
      message: "Recording(s) deleted successfully.",
      data: await service.deleteRecordings(ctx, data),
    }),
  }),
];
