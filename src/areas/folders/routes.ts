import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import { deleteFolder, updateFolder } from "./changes.js";
import { MAX_NESTED_FOLDERS } from "./listing.js";
import {
  AddFoldersV1,
  AddFoldersV2,
  DeletedCount,
  DeleteFolder,
  FolderItemResults,
  FolderRecord,
  GetFolders,
  UpdateFolder,
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
    summary: "Update a folder (extension)",
    description:
      "Renames (`folderName`), moves (`parentFolderId`, `root` for the top level) and/or sets access " +
      "(`accessType`, or `inheritAccessFromParent: true`). A move rewrites `ancestors` and inherited access of " +
      "the whole subtree atomically; a parent inside the subtree is INVALID_ARGUMENT. Returns the folder. " +
      NEEDS,
    data: UpdateFolder,
    result: FolderRecord,
    example: {
      data: { organizationId: "org-1", folderId: "q3", folderName: "Q3 2026" },
      message: "Folder updated successfully.",
      result: {
        ...EXAMPLE_FOLDER,
        folderId: "q3",
        folderName: "Q3 2026",
        parentFolderId: "reports",
        ancestors: ["root", "reports"],
        inheritAccessFromParent: true,
      },
    },
    handle: async (ctx, data) => ({
      message: "Folder updated successfully.",
      data: await updateFolder(ctx, data),
    }),
  }),
  operation({
    path: "/v2/organizations/folders/delete",
    operationId: "foldersDelete",
    tag: TAG,
    summary: "Delete a folder (extension)",
    description: `Deletes the folder and every folder below it; returns \`deletedCount\`. ${NEEDS}`,
    data: DeleteFolder,
    result: DeletedCount,
    example: {
      data: { organizationId: "org-1", folderId: "drafts" },
      message: "Folder(s) deleted successfully.",
      result: { deletedCount: 1 },
    },
    handle: async (ctx, data) => ({
      message: "Folder(s) deleted successfully.",
      data: await deleteFolder(ctx, data),
    }),
  }),
];
