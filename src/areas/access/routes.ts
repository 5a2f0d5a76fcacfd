import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { Acknowledgement, Closed, named } from "../../http/schemas.js";
import { AddPermissions, GetPermissions, RemovePermissions, UserGrants } from "./schemas.js";
import * as service from "./service.js";

export const accessOperations = [
  operation({
    path: "/v2/auth/permissions/add",
    operationId: "permissionsAdd",
    tag: "Access",
    summary: "Grant permissions (extension)",
    description:
      "Grants one user `viewer` (default) or `editor` on organizations, folders or documents, optionally until " +
      "`expiresAt` (epoch ms, in the future). Every resource must exist (NOT_FOUND otherwise); granting again " +
      "replaces role and expiry. A grant on a folder covers every document below it, wherever the folder moves.",
    data: AddPermissions,
    result: Acknowledgement,
    example: {
      data: {
        userId: "u2",
        permissions: {
          resources: [
            { type: "folder", id: "reports", organizationId: "org-1", accessRole: "editor" },
            { type: "document", id: "doc-2", organizationId: "org-1", expiresAt: 4102444800000 },
            { type: "organization", id: "org-1" },
          ],
        },
      },
      message: "Permission(s) added successfully.",
      result: { success: true, message: "Permission(s) added successfully." },
    },
    handle: async (ctx, data) => {
      await service.addPermissions(ctx, data);
      const message = "Permission(s) added successfully.";
      return { message, data: { success: true, message } };
    },
  }),
  operation({
    path: "/v2/auth/permissions/get",
    operationId: "permissionsGet",
    tag: "Access",
    summary: "Get permissions (extension)",
    description:
      "The live (unexpired) grants of the given users in one organization, keyed by userId, then " +
      "`organization`/`folders`/`documents`, then resource id. `folderIds`/`documentIds` narrow the list.",
    data: GetPermissions,
    result: UserGrants,
    example: {
      data: { organizationId: "org-1", userIds: ["u2"] },
      message: "Permission(s) retrieved successfully.",
      result: {
        u2: {
          organization: { "org-1": { accessRole: "viewer" } },
          folders: { reports: { accessRole: "editor" } },
          documents: { "doc-2": { accessRole: "viewer", expiresAt: 4102444800000 } },
        },
      },
    },
    handle: async (ctx, data) => ({
      message: "Permission(s) retrieved successfully.",
      data: await service.getPermissions(ctx, data),
    }),
  }),
  operation({
    path: "/v2/auth/permissions/remove",
    operationId: "permissionsRemove",
    tag: "Access",
    summary: "Remove permissions (extension)",
    description: "Removes one user's grants on the given resources; `removedCount` says how many existed.",
    data: RemovePermissions,
    result: named(
      "RemovedCount",
      Closed({ removedCount: Type.Integer({ minimum: 0 }) }, "How many of the grants existed."),
    ),
    example: {
      data: {
        userId: "u2",
        permissions: { resources: [{ type: "document", id: "doc-2", organizationId: "org-1" }] },
      },
      message: "Permission(s) removed successfully.",
      result: { removedCount: 1 },
    },
    handle: async (ctx, data) => ({
      message: "Permission(s) removed successfully.",
      data: { removedCount: await service.removePermissions(ctx, data) },
    }),
  }),
];
