import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { AddPermissions, GetPermissions, RemovePermissions, UserGrants } from "./schemas.js";
import * as service from "./service.js";

export const accessOperations = [
  operation({
    path: "/v2/auth/permissions/add",
    tag: "Access",
    summary: "Grant permissions (extension)",
    description:
      "Grants one user `viewer` (default) or `editor` on organizations, folders or documents, optionally until " +
      "`expiresAt` (epoch ms, in the future). Every resource must exist (NOT_FOUND otherwise); granting again " +
      "replaces role and expiry. A grant on a folder covers every document below it, wherever the folder moves.",
    data: AddPermissions,
    result: Type.Object({ success: Type.Boolean(), message: Type.String() }),
    handle: async (ctx, data) => {
      await service.addPermissions(ctx, data);
      const message = "Permission(s) added successfully.";
      return { message, data: { success: true, message } };
    },
  }),
  operation({
    path: "/v2/auth/permissions/get",
    tag: "Access",
    summary: "Get permissions (extension)",
    description:
      "The live (unexpired) grants of the given users in one organization, keyed by userId, then " +
      "`organization`/`folders`/`documents`, then resource id. `folderIds`/`documentIds` narrow the list.",
    data: GetPermissions,
    result: UserGrants,
    handle: async (ctx, data) => ({
      message: "Permission(s) retrieved successfully.",
      data: await service.getPermissions(ctx, data),
    }),
  }),
  operation({
    path: "/v2/auth/permissions/remove",
    tag: "Access",
    summary: "Remove permissions (extension)",
    description: "Removes one user's grants on the given resources; `removedCount` says how many existed.",
    data: RemovePermissions,
    result: Type.Object({ removedCount: Type.Integer() }),
    handle: async (ctx, data) => ({
      message: "Permission(s) removed successfully.",
      data: { removedCount: await service.removePermissions(ctx, data) },
    }),
  }),
];
