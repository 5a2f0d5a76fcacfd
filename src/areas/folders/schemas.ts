import { type Static, Type } from "typebox";
import { Closed, Id, MAX_ITEMS } from "../../http/schemas.js";
import { Name } from "../organizations/schemas.js";
import { ACCESS_TYPES, MAX_FOLDER_DEPTH } from "./paths.js";

const AccessType = Type.Enum([...ACCESS_TYPES], {
  description: "organizationPrivate, restricted or public. Omitted: inherited from the parent.",
});

const FolderId = Id("The folder's id, chosen by the client; `root` is reserved for the top level.");
const ParentFolderId = Id("The parent's folderId, or `root` (the default) for a top-level folder.");
const FolderName = Name("Display name; defaults to the folderId.");

export const NewFolderV1 = Closed({
  folderId: FolderId,
  folderName: Type.Optional(FolderName),
  parentFolderId: Type.Optional(ParentFolderId),
});

export const NewFolderV2 = Closed({
  folderId: FolderId,
  folderName: Type.Optional(FolderName),
  parentFolderId: Type.Optional(ParentFolderId),
  accessType: Type.Optional(AccessType),
});

export const AddFoldersV1 = Closed({
  organizationId: Id(),
  folders: Type.Array(NewFolderV1, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const AddFoldersV2 = Closed({
  organizationId: Id(),
  createOrganization: Type.Optional(
    Type.Boolean({ description: "Create the organization first if missing." }),
  ),
  folders: Type.Array(NewFolderV2, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const GetFolders = Closed({
  organizationId: Id(),
  folderId: Type.Optional(Id("Return this folder and its subfolders.")),
  maxDepth: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_FOLDER_DEPTH,
      description:
        "Levels of subFolders to nest; default 1 with folderId. Without folderId: nest top-level folders.",
    }),
  ),
});

export const UpdateFolder = Closed({
  organizationId: Id(),
  folderId: Id("The folder to change."),
  folderName: Type.Optional(FolderName),
  parentFolderId: Type.Optional(ParentFolderId),
  accessType: Type.Optional(AccessType),
  inheritAccessFromParent: Type.Optional(
    Type.Boolean({
      description: "true: inherit the parent's access again; false: keep the current one as own.",
    }),
  ),
});

export const DeleteFolder = Closed({
  organizationId: Id(),
  folderId: Id("The folder to delete with everything below it."),
});

const FolderFields = {
  folderId: Type.String(),
  folderName: Type.String(),
  parentFolderId: Type.String(),
  apiKey: Type.String(),
  organizationId: Type.String(),
  createdAt: Type.Integer(),
  lastUpdated: Type.Integer(),
  ancestors: Type.Array(Type.String(), { description: "Folder ids from `root` to the direct parent." }),
  accessType: Type.String(),
  inheritAccessFromParent: Type.Boolean(),
};

export const FolderRecord = Type.Object({
  ...FolderFields,
  subFolders: Type.Optional(
    Type.Array(Type.Object(FolderFields, { additionalProperties: true }), {
      description: "Nested folders of the same shape; present only when at least one is returned.",
    }),
  ),
});

export const FolderItemResults = Type.Record(
  Type.String(),
  Type.Object({ success: Type.Boolean(), id: Type.String(), message: Type.String() }),
  { description: "Keyed by folderId." },
);

export type GetFoldersInput = Static<typeof GetFolders>;
export type UpdateFolderInput = Static<typeof UpdateFolder>;
export type DeleteFolderInput = Static<typeof DeleteFolder>;
