import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import {
  AddOrganizations,
  DeleteOrganizations,
  DeleteStatus,
  DisableOrganizations,
  GetDeleteStatus,
  GetOrganizations,
  OrganizationItemResults,
  OrganizationRecord,
  UpdateOrganizations,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "Organizations";

export const organizationOperations = [
  operation({
    path: "/v2/organizations/add",
    operationId: "organizationsAdd",
    tag: TAG,
    summary: "Add organizations",
    description:
      "Creates organization records, which folder and document operations require. Items are open: keys " +
      "other than organizationId and organizationName are metadata, returned by get. Per-item results keyed " +
      "by organizationId; an existing id fails alone with `Organization already exists.`.",
    data: AddOrganizations,
    result: OrganizationItemResults,
    example: {
      data: { organizations: [{ organizationId: "org-1", organizationName: "Acme", region: "eu" }] },
      message: "Organization(s) added successfully.",
      result: { "org-1": { success: true, id: "org-1", message: "Added Successfully" } },
    },
    handle: async (ctx, data) => ({
      message: "Organization(s) added successfully.",
      data: await service.addOrganizations(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/get",
    operationId: "organizationsGet",
    tag: TAG,
    summary: "Get organizations",
    description:
      "The workspace's organizations in organizationId order, optionally only `organizationIds`, keyset-paged. " +
      '`pageToken` is `""` and `nextPageToken` null on the last page.',
    data: GetOrganizations,
    result: Type.Array(OrganizationRecord),
    nextPageToken: true,
    example: {
      data: { organizationIds: ["org-1"], pageSize: 100 },
      message: "Organization(s) retrieved successfully.",
      result: [
        {
          id: "org-1",
          organizationName: "Acme",
          disabled: false,
          region: "eu",
          organizationId: "org-1",
          createdAt: 1767225600000,
          lastUpdated: 1767225600000,
        },
      ],
      pageToken: "",
    },
    list: true,
    handle: async (ctx, data) => {
      const page = await service.getOrganizations(ctx, data);
      return {
        message: "Organization(s) retrieved successfully.",
        data: null,
        rawData: `[${page.records.join(",")}]`,
        pageToken: page.pageToken,
      };
    },
  }),
  operation({
    path: "/v2/organizations/update",
    operationId: "organizationsUpdate",
    tag: TAG,
    summary: "Update organizations",
    description:
      "Merges `organizationName` and metadata keys into existing organizations. Per-item results keyed by " +
      "organizationId; an unknown id fails alone with `Organization does not exist`.",
    data: UpdateOrganizations,
    result: OrganizationItemResults,
    example: {
      data: { organizations: [{ organizationId: "org-1", organizationName: "Acme Inc." }] },
      message: "Organization(s) updated successfully.",
      result: { "org-1": { success: true, id: "org-1", message: "Updated Successfully" } },
    },
    handle: async (ctx, data) => ({
      message: "Organization(s) updated successfully.",
      data: await service.updateOrganizations(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/access/disablestate/update",
    operationId: "organizationsDisableStateUpdate",
    tag: TAG,
    summary: "Disable or enable organizations",
    description:
      "While `disabled`, the access rule denies every user on everything in the organization; REST " +
      "operations with the API key still work. A missing organization is created, then marked.",
    data: DisableOrganizations,
    result: OrganizationItemResults,
    example: {
      data: { organizationIds: ["org-1"], disabled: false },
      message: "Updated disable state for Organization(s) successfully.",
      result: {
        "org-1": {
          success: true,
          id: "org-1",
          message: "Updated disable state for organization Successfully",
        },
      },
    },
    handle: async (ctx, data) => ({
      message: "Updated disable state for Organization(s) successfully.",
      data: await service.setOrganizationsDisabled(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/delete",
    operationId: "organizationsDelete",
    tag: TAG,
    summary: "Delete organizations",
    description:
      "Deletes organizations with everything under them: folders, documents, grants, notifications, " +
      "activities, recordings. The organization is gone at once; what it held is swept by a background " +
      "job in bounded batches (see /v2/organizations/delete/status), during which operations naming it " +
      "are refused. At most 30 ids.",
    data: DeleteOrganizations,
    result: OrganizationItemResults,
    example: {
      data: { organizationIds: ["org-2"] },
      message: "Organization(s) deleted successfully.",
      result: { "org-2": { success: false, id: "org-2", message: "Organization does not exist" } },
    },
    handle: async (ctx, data) => ({
      message: "Organization(s) deleted successfully.",
      data: await service.deleteOrganizations(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/delete/status",
    operationId: "organizationsDeleteStatus",
    tag: TAG,
    summary: "Progress of an organization or document delete",
    description:
      "Whether the sweep of a deleted organization (or of a document, with documentId) is still running. " +
      "`isDeleteCompleted` is true once nothing of it is left, and for an id no delete is sweeping.",
    data: GetDeleteStatus,
    result: DeleteStatus,
    example: {
      data: { organizationId: "org-2" },
      message: "Delete status retrieved successfully.",
      result: { isDeleteCompleted: true, tasksLeft: 0, batches: 0, rowsDeleted: 0 },
    },
    handle: async (ctx, data) => ({
      message: "Delete status retrieved successfully.",
      data: await service.deleteStatus(ctx, data),
    }),
  }),
];
