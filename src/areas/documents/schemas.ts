import { type Static, Type } from "typebox";
import {
  AddedItem,
  Closed,
  Id,
  IdFilter,
  MAX_ITEMS,
  named,
  PageSize,
  PageToken,
} from "../../http/schemas.js";
import { ACCESS_TYPES } from "../hierarchy/paths.js";
import { Name } from "../organizations/schemas.js";

export const NewDocument = named(
  "NewDocument",
  Closed(
    {
      documentId: Id("The document's id, chosen by the client."),
      documentName: Type.Optional(Name("Display name; defaults to the documentId.")),
      accessType: Type.Optional(
        Type.Enum([...ACCESS_TYPES], {
          description:
            "organizationPrivate, restricted or public. Omitted: inherited from the folder, read at check time.",
        }),
      ),
    },
    "One document to create.",
  ),
);

export const AddDocuments = Closed({
  organizationId: Id(),
  createOrganization: Type.Optional(
    Type.Boolean({ description: "Create the organization first if missing." }),
  ),
  folderId: Type.Optional(Id("The folder the documents go in; `root` (the default) for none.")),
  documents: Type.Array(NewDocument, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const GetDocuments = Closed({
  organizationId: Id(),
  documentIds: Type.Optional(IdFilter("Fetch these documents.")),
  folderId: Type.Optional(Id("Only documents directly in this folder; `root` for those in none.")),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const DocumentRecord = named(
  "Document",
  Closed(
    {
      documentId: Type.String(),
      documentName: Type.String(),
      organizationId: Type.String(),
      apiKey: Type.String(),
      folderId: Type.String({ description: "The folder holding the document, or `root`." }),
      accessType: Type.Enum([...ACCESS_TYPES], {
        description: "Effective access: the document's own, or its folder's now.",
      }),
      inheritAccessFromParent: Type.Boolean(),
      createdAt: Type.Integer({ description: "Epoch ms." }),
      lastUpdated: Type.Integer({ description: "Epoch ms." }),
    },
    "A document record.",
  ),
);

export const DocumentItemResults = Type.Record(Type.String(), AddedItem, {
  description: "Keyed by documentId.",
});

export type AddDocumentsInput = Static<typeof AddDocuments>;
export type GetDocumentsInput = Static<typeof GetDocuments>;
