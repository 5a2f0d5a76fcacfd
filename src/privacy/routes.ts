import { Type } from "typebox";
import { operation } from "../http/operation.js";
import { DeleteUserData, GetJobStatus, GetUserData, JobStarted, JobStatus, UserData } from "./schemas.js";
import { erasureStatus, exportUserData, startErasure } from "./service.js";

const FETCHED = "Data fetched successfully.";
const INITIATED = "Data deletion process has been initiated.";

export const userDataOperations = [
  operation({
    path: "/v2/users/data/get",
    operationId: "usersDataGet",
    tag: "Users",
    summary: "Export a user's data",
    description:
      "Everything the workspace holds about one user in one organization (docs/privacy.md), up to 100 records " +
      "per key and page. Pass `nextPageToken` back as `pageToken` until it is null. An unknown organization " +
      "or user is an empty export.",
    data: GetUserData,
    result: UserData,
    list: true,
    resultExtras: {
      nextPageToken: Type.Union([Type.String(), Type.Null()], {
        description: "The same token as `pageToken`; null on the last page.",
      }),
    },
    example: {
      data: { organizationId: "org-1", userId: "u4" },
      message: FETCHED,
      result: {
        comments: [],
        reactions: [],
        recordings: [],
        notifications: [],
        users: [],
        activities: [],
        grants: [],
        notificationConfigs: [{ config: { inbox: "MINE", email: "NONE" }, updatedAt: 1767225600000 }],
        userGroups: [],
        crdtStores: [],
      },
      pageToken: "",
      resultExtras: { nextPageToken: null },
    },
    handle: async (ctx, data) => {
      const page = await exportUserData(ctx, data);
      return {
        message: FETCHED,
        data: page.data,
        pageToken: page.next ?? "",
        resultExtras: { nextPageToken: page.next },
      };
    },
  }),
  operation({
    path: "/v2/users/data/delete",
    operationId: "usersDataDelete",
    tag: "Users",
    summary: "Erase users' data",
    description:
      "Starts a durable job that erases or pseudonymizes the users across every table (docs/privacy.md) and " +
      "answers at once with HTTP 202. The body carries both the `result` envelope and the original " +
      "service's top-level keys. Follow the job with /v2/users/data/delete/status. Erasing again is harmless.",
    data: DeleteUserData,
    result: JobStarted,
    httpStatus: 202,
    topLevel: {
      status: Type.Literal("success"),
      message: Type.String(),
      data: JobStarted,
      statusCode: Type.Literal(202),
    },
    example: {
      data: { userIds: ["u4"], organizationIds: ["org-1"] },
      message: INITIATED,
      result: { jobId: "job-1", tasksCount: 16 },
      topLevel: {
        status: "success",
        message: INITIATED,
        data: { jobId: "job-1", tasksCount: 16 },
        statusCode: 202,
      },
    },
    handle: async (ctx, data) => {
      const started = await startErasure(ctx, data);
      return {
        message: INITIATED,
        data: started,
        topLevel: { status: "success", message: INITIATED, data: started, statusCode: 202 },
      };
    },
  }),
  operation({
    path: "/v2/users/data/delete/status",
    operationId: "usersDataDeleteStatus",
    tag: "Users",
    summary: "Progress of a user-data erasure",
    description:
      "Whether the job is done, how many tasks are left, and when the last one finished. Unknown: NOT_FOUND.",
    data: GetJobStatus,
    result: JobStatus,
    example: {
      data: { jobId: "job-1" },
      message: FETCHED,
      result: { isDeleteCompleted: true, tasksLeft: 0, lastTaskCompletedTime: 1767225600000 },
    },
    handle: async (ctx, data) => ({ message: FETCHED, data: await erasureStatus(ctx, data) }),
  }),
];
