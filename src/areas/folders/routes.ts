import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { deleteFolder, updateFolderAccess, updateFolders } from "./changes.js";
import { MAX_NESTED_FOLDERS } from "./listing.js";
import {
  AddFoldersV1,
  AddFoldersV2,
  DeleteFolder,
  FolderAccessResults,
  FolderItemResults,
  FolderRecord,
  FolderUpdateResults,
  GetFolders,
  UpdateFolder,
  UpdateFolderAccess,
} from "./schemas.js";
import { addFolders, getFolders } from "./service.js";

const TAG = "Folders";

const EXAMPLE_FOLDER = {
  folderId: "reports",
  folderName: "Reports",
  parentFolderId: "root",
  apiKey: "ak_example",
  organizationId: "org-1",
  createdAt: 1767225600000,
  lastUpdated: 1767225600000,
  ancestors: ["root"],
  accessType: "restricted",
  inheritAccessFromParent: false,
} as const;
const ADDED = "Folder created successfully.";
const NEEDS =
  "Requires the workspace's advanced queries (FAILED_PRECONDITION otherwise) and an existing organization " +
  "(NOT_FOUND `Organization not found.`).";

export const folderOperations = [
  operation({
    path: "/v2/organizations/folders/get",
    operationId: "foldersGet",
    tag: TAG,
    summary: "Get folders",
    description:
      "With `folderId`: that folder with `subFolders` nested `maxDepth` levels (default 1, 0 allowed). Without: " +
      "every folder of the organization flat, parents first, paged (extension: `pageSize`, `pageToken`; a " +
      'page holds at most 1000 folders and COLLABD_MAX_PAGE_BYTES characters, `result.pageToken` is `""` ' +
      "on the last page); with `maxDepth` also given, the top-level folders nested. A nested answer holds at " +
      `most ${MAX_NESTED_FOLDERS} folders and COLLABD_MAX_PAGE_BYTES characters, else INVALID_ARGUMENT naming ` +
      `\`data.maxDepth\` (or \`data.folderId\`). \`subFolders\` appears only when non-empty. ${NEEDS}`,
    data: GetFolders,
    result: Type.Array(FolderRecord),
    list: true,
    example: {
      data: { organizationId: "org-1", folderId: "reports", maxDepth: 2 },
      message: "Folder(s) retrieved successfully.",
      result: [
        {
          ...EXAMPLE_FOLDER,
          subFolders: [
            {
              ...EXAMPLE_FOLDER,
              folderId: "q3",
              folderName: "Q3",
              parentFolderId: "reports",
              ancestors: ["root", "reports"],
              inheritAccessFromParent: true,
            },
          ],
        },
      ],
    },
    handle: async (ctx, data) => {
      const listing = await getFolders(ctx, data);
      const message = listing.oneFolder
        ? "Folder(s) retrieved successfully."
        : "Folders retrieved successfully.";
      return listing.records
        ? { message, data: null, rawData: `[${listing.records.join(",")}]`, pageToken: listing.pageToken }
        : { message, data: listing.folders, pageToken: listing.pageToken };
    },
  }),
  operation({
    path: "/v2/organizations/folders/add",
    operationId: "foldersAdd",
    tag: TAG,
    summary: "Add folders",
    description:
      "Creates folders; a parent may be created by another item of the same request, in any order. Without " +
      "`accessType` a folder inherits its parent's (top level: organizationPrivate). Per-item results keyed by " +
      "folderId: `Folder added.`, `Folder already exists.`, `Parent folder not found.`. `createOrganization` " +
      `creates a missing organization first. ${NEEDS}`,
    data: AddFoldersV2,
    result: FolderItemResults,
    example: {
      data: {
        organizationId: "org-1",
        createOrganization: true,
        folders: [
          { folderId: "q3", folderName: "Q3", parentFolderId: "reports" },
          { folderId: "reports", folderName: "Reports", accessType: "restricted" },
        ],
      },
      message: ADDED,
      result: {
        q3: { success: true, id: "q3", message: "Folder added." },
        reports: { success: true, id: "reports", message: "Folder added." },
      },
    },
    handle: async (ctx, data) => ({ message: ADDED, data: await addFolders(ctx, data) }),
  }),
  operation({
    path: "/v1/organizations/folders/add",
    operationId: "foldersAddV1",
    tag: TAG,
    summary: "Add folders (version 1)",
    description: `As the v2 add without \`createOrganization\` and \`accessType\`: every folder inherits. ${NEEDS}`,
    data: AddFoldersV1,
    result: FolderItemResults,
    example: {
      data: {
        organizationId: "org-1",
        folders: [{ folderId: "drafts", folderName: "Drafts", parentFolderId: "root" }],
      },
      message: ADDED,
      result: { drafts: { success: true, id: "drafts", message: "Folder added." } },
    },
    handle: async (ctx, data) => ({ message: ADDED, data: await addFolders(ctx, data) }),
  }),
  operation({
    path: "/v2/organizations/folders/update",
    operationId: "foldersUpdate",
    tag: TAG,
    summary: "Update folders",
    description:
      "Applies `folders` in order, in one transaction: renames (`folderName`), moves (`parentFolderId`, `root` " +
      "for the top level) and/or sets access (`accessType`, or `inheritAccessFromParent: true`). A move " +
      "rewrites `ancestors` and inherited access of the whole subtree. Per-item results keyed by folderId; a " +
      "failing item (`Folder not found.`, `Parent folder not found.`, `A folder cannot be moved under itself " +
      "or one of its descendants.`) changes nothing. collabd 0.1's single-folder form (top-level `folderId` " +
      `and changes) is a one-item \`folders\`. ${NEEDS}`,
    data: UpdateFolder,
    result: FolderUpdateResults,
    example: {
      data: { organizationId: "org-1", folders: [{ folderId: "q3", folderName: "Q3 2026" }] },
      message: "Folder Updated successfully.",
      result: {
        q3: {
          success: true,
          id: "q3",
          message: "Folder Updated.",
          folder: {
            ...EXAMPLE_FOLDER,
            folderId: "q3",
            folderName: "Q3 2026",
            parentFolderId: "reports",
            ancestors: ["root", "reports"],
            inheritAccessFromParent: true,
          },
        },
      },
    },
    handle: async (ctx, data) => ({
      message: "Folder Updated successfully.",
      data: await updateFolders(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/folders/access/update",
    operationId: "foldersAccessUpdate",
    tag: TAG,
    summary: "Set folders' access",
    description:
      "Sets each folder's own `accessType`, or with `inheritFromParent: true` makes it inherit its parent's " +
      "again (top level: the workspace's defaultAccessType). Subfolders and documents that inherit follow at " +
      `once. An unknown folder fails alone with \`Folder not found.\`. At most 30 ids. ${NEEDS}`,
    data: UpdateFolderAccess,
    result: FolderAccessResults,
    example: {
      data: { organizationId: "org-1", folderIds: ["q3"], inheritFromParent: true },
      message: "Updated access for folders successfully.",
      result: {
        q3: {
          success: true,
          accessType: null,
          inheritFromParent: true,
          message: "Folder access type updated.",
        },
      },
    },
    handle: async (ctx, data) => ({
      message: "Updated access for folders successfully.",
      data: await updateFolderAccess(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/folders/delete",
    operationId: "foldersDelete",
    tag: TAG,
    summary: "Delete a folder",
    description:
      "Deletes the folder, every folder below it and every document placed in them (with their grants and " +
      "feature data, as documents delete does). The folders and one bounded batch of the documents go at once; " +
      "more documents are hidden at once and swept by a background job (see /v2/organizations/delete/status " +
      "with folderId). `result.data` is null; `result.deletedCount` (folders) and " +
      "`result.deletedDocumentCount` are extras. Unknown folder: NOT_FOUND `Folder not found.` with " +
      `\`error.code\` \`not-found\`. ${NEEDS}`,
    data: DeleteFolder,
    result: Type.Null(),
    resultExtras: {
      deletedCount: Type.Integer({ minimum: 0, description: "Folders deleted." }),
      deletedDocumentCount: Type.Integer({ minimum: 0, description: "Documents deleted with them." }),
    },
    example: {
      data: { organizationId: "org-1", folderId: "drafts" },
      message: "Folder deletion initiated successfully.",
      result: null,
      resultExtras: { deletedCount: 1, deletedDocumentCount: 0 },
    },
    handle: async (ctx, data) => ({
      message: "Folder deletion initiated successfully.",
      data: null,
      resultExtras: await deleteFolder(ctx, data),
    }),
  }),
];
