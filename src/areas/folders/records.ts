import { parentPath } from "../hierarchy/paths.js";
import type { FolderNode, NodeRow } from "./store.js";

/** A folder as the API returns it (docs/contract.md "Folders"), in the original's field order. */
export interface Folder {
  folderId: string;
  folderName: string;
  parentFolderId: string;
  apiKey: string;
  organizationId: string;
  createdAt: number;
  lastUpdated: number;
  ancestors: readonly string[];
  accessType: string;
  inheritAccessFromParent: boolean;
  /** Present only when at least one subfolder is returned in it. */
  subFolders?: Folder[];
}

export interface Owner {
  readonly apiKey: string;
  readonly organizationId: string;
}

/** The public shape of a stored folder; the owner fields come from the request, not the row. */
export function toFolder(node: FolderNode, owner: Owner): Folder {
  return {
    folderId: node.folderId,
    folderName: node.folderName,
    parentFolderId: node.parentFolderId,
    apiKey: owner.apiKey,
    organizationId: owner.organizationId,
    createdAt: node.createdAt,
    lastUpdated: node.lastUpdated,
    ancestors: node.ancestors,
    accessType: node.accessType,
    inheritAccessFromParent: node.inheritAccessFromParent,
  };
}

/**
 * Nests `below` (in path order) under `tops`: each node goes into its parent's
 * `subFolders`, created on the first child so an empty list never appears.
 */
export function nest(tops: readonly FolderNode[], below: readonly FolderNode[], owner: Owner): Folder[] {
  const byPath = new Map<string, Folder>();
  const roots = tops.map((node) => {
    const folder = toFolder(node, owner);
    byPath.set(node.path, folder);
    return folder;
  });
  for (const node of below) {
    const parent = byPath.get(parentPath(node.path));
    if (!parent) continue;
    const folder = toFolder(node, owner);
    if (parent.subFolders) parent.subFolders.push(folder);
    else parent.subFolders = [folder];
    byPath.set(node.path, folder);
  }
  return roots;
}

/**
 * The JSON of `toFolder(rowToNode(row), owner)` written straight from the stored row: the
 * ancestors are spliced in as stored (JSON text written by JSON.stringify), not parsed
 * and serialized again, which was most of a flat listing's work with deep trees.
 */
export function folderJson(row: NodeRow, owner: Owner): string {
  return (
    `{"folderId":${JSON.stringify(row.folder_id)},"folderName":${JSON.stringify(row.folder_name)},` +
    `"parentFolderId":${JSON.stringify(row.parent_folder_id)},"apiKey":${JSON.stringify(owner.apiKey)},` +
    `"organizationId":${JSON.stringify(owner.organizationId)},"createdAt":${Number(row.created_at)},` +
    `"lastUpdated":${Number(row.last_updated)},"ancestors":${row.ancestors},` +
    `"accessType":${JSON.stringify(row.access_type)},"inheritAccessFromParent":${row.inherit_access === 1}}`
  );
}
