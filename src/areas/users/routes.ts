import { operation } from "../../http/operation.js";
import {
  AddUsers,
  DeleteUsers,
  GetUsers,
  UpdateUsers,
  UserDeleteResults,
  UserItemResults,
  UserList,
} from "./schemas.js";
import * as service from "./service.js";

const PROCESSED = "User(s) processed successfully.";

export const userOperations = [
  operation({
    path: "/v2/users/add",
    operationId: "usersAdd",
    tag: "Users",
    summary: "Add users",
    description:
      "Adds users at the organization (no documentId/folderId), a folder or a document: the profile (one per " +
      "user and organization, merged with the stored one; `initial` derived from `name` when absent) and a " +
      "membership with `accessRole` (default `editor`), which counts like a permanent grant at that level. The " +
      "organization record is created when missing; a missing folder or document is created only with " +
      "`createFolder`/`createDocument`, else the membership is stored by id. An existing member is updated.",
    data: AddUsers,
    result: UserItemResults,
    example: {
      data: {
        organizationId: "org-1",
        users: [
          { userId: "u1", name: "Ada Lovelace", email: "ada@example.com" },
          { userId: "u3", name: "Grace Hopper", accessRole: "viewer", plan: "pro" },
        ],
      },
      message: PROCESSED,
      result: {
        u1: { success: true, id: "u1", message: "User added." },
        u3: { success: true, id: "u3", message: "User added." },
      },
    },
    handle: async (ctx, data) => ({ message: PROCESSED, data: await service.addUsers(ctx, data) }),
  }),
  operation({
    path: "/v2/users/get",
    operationId: "usersGet",
    tag: "Users",
    summary: "Get users",
    description:
      "The users of a level in userId order, each its profile plus `accessRole` at that level; `userIds` " +
      "(≤ 30) narrows. `allDocuments`: every document-level membership of the organization, with `documentId`; " +
      "`groupByDocumentId` turns `data` into `{documentId: User[]}`. `organizationUserGroupIds` (≤ 30) " +
      "selects the members of those groups at the level (with `userIds`: users in either). Keyset-paged: `pageSize` default 1000; `pageToken` and `nextPageToken`.",
    data: GetUsers,
    result: UserList,
    list: true,
    nextPageToken: true,
    example: {
      data: { organizationId: "org-1", userIds: ["u1", "u3"] },
      message: "User(s) retrieved successfully.",
      result: [
        { userId: "u1", name: "Ada Lovelace", email: "ada@example.com", initial: "A", accessRole: "editor" },
        { userId: "u3", name: "Grace Hopper", plan: "pro", initial: "G", accessRole: "viewer" },
      ],
    },
    handle: async (ctx, data) => {
      const page = await service.getUsers(ctx, data);
      return {
        message: "User(s) retrieved successfully.",
        data: null,
        rawData: page.rawData,
        pageToken: page.pageToken,
      };
    },
  }),
  operation({
    path: "/v2/users/update",
    operationId: "usersUpdate",
    tag: "Users",
    summary: "Update users",
    description:
      "Merges the sent fields into each member's profile and sets `accessRole` at the level when sent. A user " +
      "who is not a member at that level fails alone with `User does not exist.`.",
    data: UpdateUsers,
    result: UserItemResults,
    example: {
      data: {
        organizationId: "org-1",
        users: [{ userId: "u3", accessRole: "editor", photoUrl: "https://example.com/g.png" }],
      },
      message: PROCESSED,
      result: { u3: { success: true, id: "u3", message: "User updated." } },
    },
    handle: async (ctx, data) => ({ message: PROCESSED, data: await service.updateUsers(ctx, data) }),
  }),
  operation({
    path: "/v2/users/delete",
    operationId: "usersDelete",
    tag: "Users",
    summary: "Delete users",
    description:
      "Removes users from a level. At organization level the user leaves the organization: the profile, " +
      "memberships at every level and grants in it are removed too. A user without a membership at the level " +
      "fails alone with `User does not exist.`.",
    data: DeleteUsers,
    result: UserDeleteResults,
    example: {
      data: { organizationId: "org-1", userIds: ["u3", "nobody"] },
      message: "User(s) deleted successfully.",
      result: {
        u3: { success: true, message: "User removed." },
        nobody: { success: false, message: "User does not exist." },
      },
    },
    handle: async (ctx, data) => ({
      message: "User(s) deleted successfully.",
      data: await service.deleteUsers(ctx, data),
    }),
  }),
];
