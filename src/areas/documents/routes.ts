import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { AddDocuments, DocumentItemResults, DocumentRecord, GetDocuments } from "./schemas.js";
import * as service from "./service.js";

export const documentOperations = [
  operation({
    path: "/v2/organizations/documents/add",
    operationId: "documentsAdd",
    tag: "Documents",
    summary: "Add documents (extension)",
    description:
      "Creates documents in `folderId` (default `root`) of an existing organization (NOT_FOUND otherwise, unless " +
      "`createOrganization`). Without `accessType` a document inherits its folder's effective access. Per-item " +
      "results keyed by documentId; an existing id fails with `Document already exists.`.",
    data: AddDocuments,
    result: DocumentItemResults,
    example: {
      data: {
        organizationId: "org-1",
        folderId: "reports",
        documents: [
          { documentId: "doc-1", documentName: "Q3 report" },
          { documentId: "doc-2", accessType: "public" },
        ],
      },
      message: "Document(s) added successfully.",
      result: {
        "doc-1": { success: true, id: "doc-1", message: "Document added." },
        "doc-2": { success: true, id: "doc-2", message: "Document added." },
      },
    },
    handle: async (ctx, data) => ({
      message: "Document(s) added successfully.",
      data: await service.addDocuments(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/documents/get",
    operationId: "documentsGet",
    tag: "Documents",
    summary: "Get documents (extension)",
    description:
      "Documents of an organization in documentId order, keyset-paged, optionally directly in `folderId` " +
      "(`root`: in no folder) or with the given ids. `accessType` is the effective access at the time of the read.",
    data: GetDocuments,
    result: Type.Array(DocumentRecord),
    example: {
      data: { organizationId: "org-1", folderId: "reports" },
      message: "Document(s) retrieved successfully.",
      result: [
        {
          documentId: "doc-1",
          documentName: "Q3 report",
          organizationId: "org-1",
          apiKey: "ak_example",
          folderId: "reports",
          accessType: "restricted",
          inheritAccessFromParent: true,
          createdAt: 1767225600000,
          lastUpdated: 1767225600000,
        },
        {
          documentId: "doc-2",
          documentName: "doc-2",
          organizationId: "org-1",
          apiKey: "ak_example",
          folderId: "reports",
          accessType: "public",
          inheritAccessFromParent: false,
          createdAt: 1767225600000,
          lastUpdated: 1767225600000,
        },
      ],
      pageToken: "",
    },
    list: true,
    handle: async (ctx, data) => {
      const page = await service.getDocuments(ctx, data);
      return {
        message: "Document(s) retrieved successfully.",
        data: page.documents,
        pageToken: page.pageToken,
      };
    },
  }),
];
