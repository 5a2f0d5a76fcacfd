import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { moveDocuments, setDocumentsDisabled, updateDocumentsAccess } from "./changes.js";
import { getDocuments } from "./listing.js";
import { migrateDocument, migrationStatus } from "./migration.js";
import {
  AccessItemResults,
  AddDocuments,
  DeleteDocuments,
  DisableDocuments,
  DisabledItemResults,
  DocumentItemResults,
  DocumentRecord,
  GetDocuments,
  GetMigrationStatus,
  MigrateDocument,
  MigrationStarted,
  MigrationStatus,
  MissingDocument,
  MoveDocuments,
  UpdateDocuments,
  UpdateDocumentsAccess,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "Documents";
const EXAMPLE_DOCUMENT = {
  id: "doc-1",
  documentId: "doc-1",
  documentName: "Q3 report",
  disabled: false,
  accessType: "restricted",
  organizationId: "org-1",
  apiKey: "ak_example",
  folderId: "reports",
  inheritAccessFromParent: true,
  createdAt: 1767225600000,
  lastUpdated: 1767225600000,
} as const;

export const documentOperations = [
  operation({
    path: "/v2/organizations/documents/add",
    operationId: "documentsAdd",
    tag: TAG,
    summary: "Add documents",
    description:
      "Creates documents in `folderId` (default `root`) of an existing organization (NOT_FOUND otherwise, unless " +
      "`createOrganization`); a missing folder is NOT_FOUND unless `createFolder`, which makes it at the top " +
      "level. Without `accessType` a document inherits its folder's effective access (at the root the " +
      "workspace's defaultAccessType). Items are open: other keys are metadata, returned by get. Per-item " +
      "results keyed by documentId; an existing id fails with `Document already exists` (code `already-exists`).",
    data: AddDocuments,
    result: DocumentItemResults,
    example: {
      data: {
        organizationId: "org-1",
        folderId: "reports",
        documents: [
          { documentId: "doc-1", documentName: "Q3 report", owner: "finance" },
          { documentId: "doc-2", accessType: "public" },
        ],
      },
      message: "Document(s) added successfully.",
      result: {
        "doc-1": { success: true, id: "doc-1", message: "Added Successfully" },
        "doc-2": { success: true, id: "doc-2", message: "Added Successfully" },
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
    tag: TAG,
    summary: "Get documents",
    description:
      "Documents of an organization in documentId order, keyset-paged, optionally directly in `folderId` " +
      "(`root`: in no folder). With `documentIds`: those documents in the request's order on one page, an " +
      'unknown id answered in place by `{id, success: false, message: "Document does not exist", code: ' +
      '"not-found"}`. `accessType` is the effective access at the time of the read.',
    data: GetDocuments,
    result: Type.Array(Type.Union([DocumentRecord, MissingDocument])),
    example: {
      data: { organizationId: "org-1", folderId: "reports" },
      message: "Document(s) retrieved successfully.",
      result: [
        { ...EXAMPLE_DOCUMENT, owner: "finance" },
        {
          ...EXAMPLE_DOCUMENT,
          id: "doc-2",
          documentId: "doc-2",
          documentName: "doc-2",
          accessType: "public",
          inheritAccessFromParent: false,
        },
      ],
      pageToken: "",
    },
    list: true,
    handle: async (ctx, data) => {
      const page = await getDocuments(ctx, data);
      return {
        message: "Document(s) retrieved successfully.",
        data: null,
        rawData: `[${page.records.join(",")}]`,
        pageToken: page.pageToken,
      };
    },
  }),
  operation({
    path: "/v2/organizations/documents/update",
    operationId: "documentsUpdate",
    tag: TAG,
    summary: "Update documents",
    description:
      "Merges `documentName` and metadata keys into existing documents. An unknown id fails alone with " +
      "`Document does not exist` (code `not-found`).",
    data: UpdateDocuments,
    result: DocumentItemResults,
    example: {
      data: {
        organizationId: "org-1",
        documents: [{ documentId: "doc-1", documentName: "Q3 report (final)" }],
      },
      message: "Document(s) updated successfully.",
      result: { "doc-1": { success: true, id: "doc-1", message: "Updated Successfully" } },
    },
    handle: async (ctx, data) => ({
      message: "Document(s) updated successfully.",
      data: await service.updateDocuments(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/documents/move",
    operationId: "documentsMove",
    tag: TAG,
    summary: "Move documents",
    description:
      "Places documents in `folderId` (`root`: the top level; unknown folder NOT_FOUND `Folder not found.`). " +
      "A document keeps its own accessType; inherited access follows the new folder. At most 30 ids.",
    data: MoveDocuments,
    result: DocumentItemResults,
    example: {
      data: { organizationId: "org-1", documentIds: ["doc-2"], folderId: "root" },
      message: "Documents moved successfully.",
      result: { "doc-2": { success: true, id: "doc-2", message: "Document moved." } },
    },
    handle: async (ctx, data) => ({
      message: "Documents moved successfully.",
      data: await moveDocuments(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/documents/access/update",
    operationId: "documentsAccessUpdate",
    tag: TAG,
    summary: "Set documents' access",
    description:
      "Sets each document's own accessType; a document without a record (or organization) is created at the " +
      "root first. At most 30 ids.",
    data: UpdateDocumentsAccess,
    result: AccessItemResults,
    example: {
      data: { organizationId: "org-1", documentIds: ["doc-1"], accessType: "restricted" },
      message: "Updated access for documents successfully.",
      result: {
        "doc-1": { success: true, accessType: "restricted", message: "Document access type updated." },
      },
    },
    handle: async (ctx, data) => ({
      message: "Updated access for documents successfully.",
      data: await updateDocumentsAccess(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/documents/access/disablestate/update",
    operationId: "documentsDisableStateUpdate",
    tag: TAG,
    summary: "Disable or enable documents",
    description:
      "While `disabled`, the access rule denies every user on the document. A document without a record (or " +
      "organization) is created at the root first. At most 30 ids.",
    data: DisableDocuments,
    result: DisabledItemResults,
    example: {
      data: { organizationId: "org-1", documentIds: ["doc-1"], disabled: false },
      message: "Updated disable state for documents successfully.",
      result: { "doc-1": { success: true, disabled: false, message: "Document disabled state updated." } },
    },
    handle: async (ctx, data) => ({
      message: "Updated disable state for documents successfully.",
      data: await setDocumentsDisabled(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/documents/delete",
    operationId: "documentsDelete",
    tag: TAG,
    summary: "Delete documents",
    description:
      "Deletes documents with their grants and feature data (activities, recordings, notifications). An " +
      "unknown id fails alone with `Document does not exist` (code `not-found`). At most 30 ids.",
    data: DeleteDocuments,
    result: DocumentItemResults,
    example: {
      data: { organizationId: "org-1", documentIds: ["doc-2"] },
      message: "Document(s) deleted successfully.",
      result: { "doc-2": { success: true, id: "doc-2", message: "Deleted Successfully" } },
    },
    handle: async (ctx, data) => ({
      message: "Document(s) deleted successfully.",
      data: await service.deleteDocuments(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/documents/migrate",
    operationId: "documentsMigrate",
    tag: TAG,
    summary: "Move a document's data to a new id",
    description:
      "Starts a background job that moves every row of the document (its record, activities, recordings, " +
      "notifications, comment threads, preferences, grants) to `newDocumentId`, in bounded batches that resume " +
      "after a crash. `newDocumentId` must be unused (else ALREADY_EXISTS). Until the job completes, operations " +
      "naming either id are refused with FAILED_PRECONDITION. Follow it with migrate/status.",
    data: MigrateDocument,
    result: MigrationStarted,
    example: {
      data: { organizationId: "org-1", documentId: "doc-3", newDocumentId: "doc-3-v2" },
      message: "Document migration started successfully.",
      result: { migrationId: "0190f5c2a1b2c3d4e5f6a7b8" },
    },
    handle: async (ctx, data) => ({
      message: "Document migration started successfully.",
      data: await migrateDocument(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/documents/migrate/status",
    operationId: "documentsMigrateStatus",
    tag: TAG,
    summary: "Progress of a document migration",
    description:
      "`status`: pending (no batch yet), in_progress or completed; an unknown migrationId is NOT_FOUND " +
      "`Migration not found.`",
    data: GetMigrationStatus,
    result: MigrationStatus,
    example: {
      data: { organizationId: "org-1", migrationId: "0190f5c2a1b2c3d4e5f6a7b8" },
      message: "Migration status retrieved successfully.",
      result: {
        migrationId: "0190f5c2a1b2c3d4e5f6a7b8",
        status: "completed",
        tasksLeft: 0,
        batches: 10,
        rowsMoved: 0,
      },
    },
    handle: async (ctx, data) => ({
      message: "Migration status retrieved successfully.",
      data: await migrationStatus(ctx, data),
    }),
  }),
];
