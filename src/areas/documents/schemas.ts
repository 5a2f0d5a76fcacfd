import { type Static, Type } from "typebox";
import {
  Closed,
  Id,
  IdFilter,
  JSON_VALUE_REF,
  MAX_ITEMS,
  named,
  PageSize,
  PageToken,
} from "../../http/schemas.js";
import { OpenItem } from "../hierarchy/metadata.js";
import { ACCESS_TYPES } from "../hierarchy/paths.js";
import { IdList, Name } from "../organizations/schemas.js";

const AccessTypeValue = (description: string) => Type.Enum([...ACCESS_TYPES], { description });

/** Keys a document record sets itself (and that per-item results use), refused as metadata. */
export const DOCUMENT_RESERVED = [
  "id",
  "disabled",
  "organizationId",
  "apiKey",
  "folderId",
  "inheritAccessFromParent",
  "createdAt",
  "lastUpdated",
  "success",
  "message",
  "code",
] as const;

export const NewDocument = named(
  "NewDocument",
  OpenItem(
    {
      documentId: Id("The document's id, chosen by the client."),
      documentName: Type.Optional(Name("Display name; defaults to the documentId.")),
      accessType: Type.Optional(
        AccessTypeValue(
          "organizationPrivate, restricted or public. Omitted: inherited from the folder, read at check time.",
        ),
      ),
    },
    "One document to create. Open: other keys are metadata, stored and returned by get.",
  ),
);

export const AddDocuments = Closed({
  organizationId: Id(),
  createOrganization: Type.Optional(
    Type.Boolean({ description: "Create the organization first if missing." }),
  ),
  folderId: Type.Optional(Id("The folder the documents go in; `root` (the default) for none.")),
  createFolder: Type.Optional(
    Type.Boolean({
      description:
        "Create `folderId` first at the top level (named by its id, inheriting access) if missing.",
    }),
  ),
  documents: Type.Array(NewDocument, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const GetDocuments = Closed({
  organizationId: Id(),
  documentIds: Type.Optional(IdFilter("Fetch these documents, answered in this order.")),
  folderId: Type.Optional(Id("Only documents directly in this folder; `root` for those in none.")),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const DocumentChange = named(
  "DocumentChange",
  OpenItem(
    {
      documentId: Id("The document to change."),
      documentName: Type.Optional(Name("New display name.")),
    },
    "One document's changes: documentName and metadata keys, merged into the stored ones.",
  ),
);

export const UpdateDocuments = Closed({
  organizationId: Id(),
  documents: Type.Array(DocumentChange, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const DeleteDocuments = Closed({
  organizationId: Id(),
  documentIds: IdList("Documents to delete with their grants and feature data."),
});

export const MoveDocuments = Closed({
  organizationId: Id(),
  documentIds: IdList("Documents to move."),
  folderId: Id("The folder they go in; `root` for the top level."),
});

export const UpdateDocumentsAccess = Closed({
  organizationId: Id(),
  documentIds: IdList("Documents to set; a missing record is created at the root first."),
  accessType: AccessTypeValue("organizationPrivate, restricted or public."),
});

export const DisableDocuments = Closed({
  organizationId: Id(),
  documentIds: IdList("Documents to mark; a missing record is created at the root first."),
  disabled: Type.Boolean({ description: "true: nobody has access to the document." }),
});

const RECORD_FIELDS = {
  id: Type.String({ description: "= documentId." }),
  documentId: Type.String(),
  documentName: Type.String(),
  disabled: Type.Boolean(),
  accessType: AccessTypeValue("Effective access: the document's own, or its folder's now."),
  organizationId: Type.String(),
  apiKey: Type.String(),
  folderId: Type.String({ description: "The folder holding the document, or `root`." }),
  inheritAccessFromParent: Type.Boolean(),
  createdAt: Type.Integer({ description: "Epoch ms." }),
  lastUpdated: Type.Integer({ description: "Epoch ms." }),
};
const RecordShape = Type.Object(RECORD_FIELDS);

export const DocumentRecord = named(
  "Document",
  Type.Unsafe<Static<typeof RecordShape>>({
    ...RecordShape,
    additionalProperties: JSON_VALUE_REF,
    description: "A document record; its metadata keys appear at the top level.",
  }),
);

export const MissingDocument = named(
  "MissingDocument",
  Closed(
    {
      id: Type.String(),
      success: Type.Literal(false),
      message: Type.String(),
      code: Type.Literal("not-found"),
    },
    "In place of a requested document that does not exist.",
  ),
);

/** A per-item outcome naming the item, with the original's failure tag where it has one. */
export const CodedItem = named(
  "CodedItemResult",
  Closed(
    {
      success: Type.Boolean(),
      id: Type.String(),
      message: Type.String(),
      code: Type.Optional(Type.String({ description: "`already-exists` or `not-found` on failures." })),
    },
    "One item's outcome.",
  ),
);

export const DocumentItemResults = Type.Record(Type.String(), CodedItem, {
  description: "Keyed by documentId.",
});

export const AccessItemResults = Type.Record(
  Type.String(),
  named(
    "AccessTypeResult",
    Closed(
      {
        success: Type.Boolean(),
        accessType: Type.Optional(Type.Union([AccessTypeValue("The access set."), Type.Null()])),
        inheritFromParent: Type.Optional(Type.Literal(true)),
        message: Type.String(),
      },
      "One item's access outcome.",
    ),
  ),
  { description: "Keyed by id." },
);

export const DisabledItemResults = Type.Record(
  Type.String(),
  named(
    "DisabledResult",
    Closed(
      { success: Type.Boolean(), disabled: Type.Boolean(), message: Type.String() },
      "One document's disabled state.",
    ),
  ),
  { description: "Keyed by documentId." },
);

export type AddDocumentsInput = Static<typeof AddDocuments>;
export type GetDocumentsInput = Static<typeof GetDocuments>;
export type UpdateDocumentsInput = Static<typeof UpdateDocuments>;
export type MoveDocumentsInput = Static<typeof MoveDocuments>;
export type UpdateDocumentsAccessInput = Static<typeof UpdateDocumentsAccess>;
export type DisableDocumentsInput = Static<typeof DisableDocuments>;

export const MigrateDocument = Closed({
  organizationId: Id(),
  documentId: Id("The document whose rows move."),
  newDocumentId: Id("The id they move to: unused (no record, no data, no grants)."),
});
export type MigrateDocumentInput = Static<typeof MigrateDocument>;

export const MigrationStarted = named(
  "MigrationStarted",
  Closed({ migrationId: Type.String({ description: "Ask migrate/status with it." }) }),
);

export const GetMigrationStatus = Closed({
  organizationId: Id(),
  migrationId: Id("As migrate answered it."),
});
export type GetMigrationStatusInput = Static<typeof GetMigrationStatus>;

export const MIGRATION_STATES = ["pending", "in_progress", "completed", "failed"] as const;

export const MigrationStatus = named(
  "MigrationStatus",
  Closed({
    migrationId: Type.String(),
    status: Type.Enum([...MIGRATION_STATES], {
      description:
        "pending: no batch committed yet; in_progress; completed: every row moved, both ids free. " +
        "collabd never answers failed: a batch that fails is retried.",
    }),
    tasksLeft: Type.Integer({ description: "Extension: kinds of rows still to move." }),
    batches: Type.Integer({ description: "Extension: bounded transactions committed so far." }),
    rowsMoved: Type.Integer({ description: "Extension: rows moved so far." }),
  }),
);
