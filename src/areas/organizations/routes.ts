import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import {
  AddOrganizations,
  GetOrganizations,
  OrganizationItemResults,
  OrganizationRecord,
} from "./schemas.js";
import * as service from "./service.js";

export const organizationOperations = [
  operation({
    path: "/v2/organizations/add",
    operationId: "organizationsAdd",
    tag: "Organizations",
    summary: "Add organizations (extension)",
    description:
      "Creates organization records, which folder and document operations require. Per-item results keyed by " +
      "organizationId; an existing id fails alone with `Organization already exists.`.",
    data: AddOrganizations,
    result: OrganizationItemResults,
    example: {
      data: { organizations: [{ organizationId: "org-1", organizationName: "Acme" }] },
      message: "Organization(s) added successfully.",
      result: { "org-1": { success: true, id: "org-1", message: "Organization added." } },
    },
    handle: async (ctx, data) => ({
      message: "Organization(s) added successfully.",
      data: await service.addOrganizations(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/get",
    operationId: "organizationsGet",
    tag: "Organizations",
    summary: "Get organizations (extension)",
    description:
      "The workspace's organizations in organizationId order, optionally only `organizationIds`, keyset-paged. " +
      '`pageToken` is `""` on the last page.',
    data: GetOrganizations,
    result: Type.Array(OrganizationRecord),
    example: {
      data: { organizationIds: ["org-1"], pageSize: 100 },
      message: "Organization(s) retrieved successfully.",
      result: [
        {
          organizationId: "org-1",
          organizationName: "Acme",
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
        data: page.organizations,
        pageToken: page.pageToken,
      };
    },
  }),
];
