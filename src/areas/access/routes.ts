import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { Acknowledgement, Closed, named } from "../../http/schemas.js";
import { AddPermissions, GetPermissions, RemovePermissions, UserAccess } from "./schemas.js";
import * as service from "./service.js";

const ADDED = "Permissions added successfully.";
const REMOVED = "Permissions removed successfully.";

export const accessOperations = [
  operation({
    path: "/v2/auth/permissions/add",
    operationId: "permissionsAdd",
    tag: "Access",
    summary: "Grant permissions",
    description:
      "Grants one user (`user`, or the collabd 0.1 `userId`: exactly one) `editor` (default) or `viewer` on " +
      "organizations, folders or documents, optionally until `expiresAt` (epoch seconds, in the future; a value " +
      "≥ 1e12 is read as epoch ms). The resources need not exist yet; a grant on an id without a record counts " +
      "in every check. Granting again replaces role and expiry. A folder grant covers every document below it, " +
      "wherever the folder moves; an organization grant does not cover `restricted` documents.",
    data: AddPermissions,
    result: Acknowledgement,
    example: {
      data: {
        user: { userId: "u2" },
        permissions: {
          resources: [
            { type: "folder", id: "reports", organizationId: "org-1", accessRole: "viewer" },
            { type: "document", id: "doc-2", organizationId: "org-1", expiresAt: 4102444800 },
            { type: "organization", id: "org-1" },
          ],
        },
      },
      message: ADDED,
      result: { success: true, message: ADDED },
    },
    handle: async (ctx, data) => {
      await service.addPermissions(ctx, data);
      return { message: ADDED, data: { success: true, message: ADDED } };
    },
  }),
  operation({
    path: "/v2/auth/permissions/get",
    operationId: "permissionsGet",
    tag: "Access",
    summary: "Get permissions",
    description:
      "Effective access of the given users in one organization, keyed by userId: `organization` " +
      "when they have organization-level access, and `folders`/`documents` with `accessRole`, the effective " +
      "`accessType` and `expiresAt` (epoch seconds) of the deciding grant, or an error entry " +
      "(`permission_denied`, `does_not_exist`). Without folderIds/documentIds: what each user holds a live " +
      "grant or membership on; with them, exactly those ids.",
    data: GetPermissions,
    result: UserAccess,
    example: {
      data: { organizationId: "org-1", userIds: ["u2"], documentIds: ["doc-1", "doc-2", "doc-9"] },
      message: "User permissions retrieved successfully.",
      result: {
        u2: {
          organization: { "org-1": { accessRole: "editor" } },
          documents: {
            "doc-1": { accessRole: "viewer", accessType: "restricted" },
            "doc-2": { accessRole: "editor", accessType: "public", expiresAt: 4102444800 },
            "doc-9": { error: "Document does not exist", errorCode: "does_not_exist" },
          },
        },
      },
    },
    handle: async (ctx, data) => ({
      message: "User permissions retrieved successfully.",
      data: await service.getPermissions(ctx, data),
    }),
  }),
  operation({
    path: "/v2/auth/permissions/remove",
    operationId: "permissionsRemove",
    tag: "Access",
    summary: "Remove permissions",
    description:
      "Removes one user's grants on the given resources; `removedCount` says how many existed. A folder " +
      "without `organizationId` loses the grant in every organization of the workspace.",
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
      message: REMOVED,
      result: { removedCount: 1 },
    },
    handle: async (ctx, data) => ({
      message: REMOVED,
      data: { removedCount: await service.removePermissions(ctx, data) },
    }),
  }),
];
