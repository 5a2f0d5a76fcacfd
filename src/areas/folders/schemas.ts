import { type Static, Type } from "typebox";
import { AddedItem, Closed, Id, MAX_ITEMS, named, PageSize, PageToken } from "../../http/schemas.js";
import { ACCESS_TYPES, MAX_FOLDER_DEPTH } from "../hierarchy/paths.js";
import { Name } from "../organizations/schemas.js";

const AccessType = named(
  "AccessType",
  Type.Enum([...ACCESS_TYPES], {
    description: "organizationPrivate, restricted or public. Omitted: inherited from the parent.",
  }),
);

const FolderId = Id("The folder's id, chosen by the client; `root` is reserved for the top level.");
const ParentFolderId = Id("The parent's folderId, or `root` (the default) for a top-level folder.");
const FolderName = Name("Display name; defaults to the folderId.");

export const NewFolderV1 = named(
  "NewFolderV1",
  Closed(
    {
      folderId: FolderId,
      folderName: Type.Optional(FolderName),
      parentFolderId: Type.Optional(ParentFolderId),
    },
    "One folder to create (version 1: always inherits access).",
  ),
);

export const NewFolderV2 = named(
  "NewFolder",
  Closed(
    {
      folderId: FolderId,
      folderName: Type.Optional(FolderName),
      parentFolderId: Type.Optional(ParentFolderId),
      accessType: Type.Optional(AccessType),
    },
    "One folder to create.",
  ),
);

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
  pageSize: Type.Optional({
    ...PageSize,
    description:
      "Extension, flat listing only (no folderId, no maxDepth): folders per page; default 1000; values " +
      "above 1000 are treated as 1000. A page also stops at COLLABD_MAX_PAGE_BYTES characters.",
  }),
  pageToken: Type.Optional({
    ...PageToken,
    description: "Extension, flat listing only: `result.pageToken` of the previous page.",
  }),
});

const CHANGE_FIELDS = {
  folderName: Type.Optional(FolderName),
  parentFolderId: Type.Optional(ParentFolderId),
  accessType: Type.Optional(AccessType),
  inheritAccessFromParent: Type.Optional(
    Type.Boolean({
      description: "true: inherit the parent's access again; false: keep the current one as own.",
    }),
  ),
};

export const FolderChange = named(
  "FolderChange",
  Closed(
    { folderId: Id("The folder to change."), ...CHANGE_FIELDS },
    "One folder's changes: at least one of folderName, parentFolderId, accessType, inheritAccessFromParent.",
  ),
);

/** The batch (`folders`) or collabd 0.1's single-folder form (top-level `folderId`), exactly one. */
export const UpdateFolder = Closed(
  {
    organizationId: Id(),
    folders: Type.Optional(
      Type.Array(FolderChange, {
        minItems: 1,
        maxItems: MAX_ITEMS,
        description: "Changes applied in order, in one transaction.",
      }),
    ),
    folderId: Type.Optional(Id("collabd 0.1 form: the one folder to change (then no `folders`).")),
    ...CHANGE_FIELDS,
  },
  "Exactly one of `folders` or `folderId`; the 0.1 form is a one-item `folders`.",
);

export const UpdateFolderAccess = Closed({
  organizationId: Id(),
  folderIds: Type.Array(Id(), { minItems: 1, maxItems: 30, description: "Folders to set. At most 30." }),
  accessType: Type.Optional(AccessType),
  inheritFromParent: Type.Optional(
    Type.Boolean({
      description:
        "true: inherit the parent's access again (top level: the workspace's defaultAccessType); then " +
        "`accessType` may be omitted and is ignored.",
    }),
  ),
});

const UpdatedFolderItem = named(
  "FolderUpdateResult",
  Closed(
    {
      success: Type.Boolean(),
      id: Type.String(),
      message: Type.String(),
      folder: Type.Optional(FolderRecordRef()),
    },
    "One folder's outcome; `folder` is the updated record.",
  ),
);

export const FolderUpdateResults = Type.Record(Type.String(), UpdatedFolderItem, {
  description: "Keyed by folderId.",
});

export const FolderAccessResults = Type.Record(
  Type.String(),
  named(
    "FolderAccessResult",
    Closed(
      {
        success: Type.Boolean(),
        accessType: Type.Optional(Type.Union([AccessType, Type.Null()])),
        inheritFromParent: Type.Optional(Type.Literal(true)),
        message: Type.String(),
      },
      "One folder's access outcome.",
    ),
  ),
  { description: "Keyed by folderId." },
);

function FolderRecordRef() {
  return Type.Unsafe<Record<string, unknown>>({ $ref: "#/components/schemas/Folder" });
}

export const DeleteFolder = Closed({
  organizationId: Id(),
  folderId: Id("The folder to delete with everything below it."),
});

export const FolderRecord = named(
  "Folder",
  Closed(
    {
      folderId: Type.String(),
      folderName: Type.String(),
      parentFolderId: Type.String({ description: "The parent's folderId, or `root`." }),
      apiKey: Type.String(),
      organizationId: Type.String(),
      createdAt: Type.Integer({ description: "Epoch ms." }),
      lastUpdated: Type.Integer({ description: "Epoch ms." }),
      ancestors: Type.Array(Type.String(), { description: "Folder ids from `root` to the direct parent." }),
      accessType: AccessType,
      inheritAccessFromParent: Type.Boolean(),
      subFolders: Type.Optional(
        // Documentation only (result schemas never validate): folders nest to any depth.
        Type.Array(Type.Unsafe<unknown>({ $ref: "#/components/schemas/Folder" }), {
          description: "Nested folders of the same shape; present only when at least one is returned.",
        }),
      ),
    },
    "A folder.",
  ),
);

export const FolderItemResults = Type.Record(Type.String(), AddedItem, { description: "Keyed by folderId." });

export type GetFoldersInput = Static<typeof GetFolders>;
export type UpdateFolderInput = Static<typeof UpdateFolder>;
export type FolderChangeInput = Static<typeof FolderChange>;
export type UpdateFolderAccessInput = Static<typeof UpdateFolderAccess>;
export type DeleteFolderInput = Static<typeof DeleteFolder>;
