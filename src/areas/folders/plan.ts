import { invalidArgument } from "../../errors.js";
import { type AccessType, MAX_FOLDER_DEPTH, pathKey, ROOT } from "../hierarchy/paths.js";
import type { FolderNode } from "./store.js";

export interface NewFolder {
  readonly folderId: string;
  readonly folderName?: string | undefined;
  readonly parentFolderId?: string | undefined;
  readonly accessType?: AccessType | undefined;
}

export interface FolderItemOutcome {
  readonly success: boolean;
  readonly id: string;
  readonly message: string;
}

export const FOLDER_MESSAGES = {
  added: "Folder added.",
  exists: "Folder already exists.",
  parentMissing: "Parent folder not found.",
  tooDeep: tooDeep(MAX_FOLDER_DEPTH),
} as const;

/** The depth limit's message, for the configured limit (COLLABD_MAX_FOLDER_DEPTH). */
export function tooDeep(levels: number): string {
  return `Folder depth limit of ${levels} levels exceeded.`;
}

export interface AddPlan {
  /** The folders to insert, parents before children. */
  readonly created: FolderNode[];
  readonly results: Record<string, FolderItemOutcome>;
}

type Parent = Pick<FolderNode, "folderId" | "ancestors" | "path" | "depth" | "accessType">;

/**
 * Decides every item of a folder add (docs/contract.md "Folders") against the folders that already
 * exist: a parent may be an existing folder or one created by another item of the
 * same request, in any order. Duplicates, missing parents and folders past the depth
 * limit fail alone; a cycle among the new items is bad input and fails the request.
 * `keyOf(index)` is the path key number allocated to the item at that index; a top-level
 * folder that inherits gets `rootAccess`, the workspace's defaultAccessType (docs/contract.md "Folders").
 */
export function planFolderAdds(
  items: readonly NewFolder[],
  existing: ReadonlyMap<string, FolderNode>,
  keyOf: (index: number) => number,
  now: number,
  maxLevels: number = MAX_FOLDER_DEPTH,
  rootAccess: AccessType = "organizationPrivate",
): AddPlan {
  const rootNode: Parent = { folderId: ROOT, ancestors: [], path: "", depth: -1, accessType: rootAccess };
  const indexOf = new Map(items.map((item, index) => [item.folderId, index]));
  const made = new Map<string, FolderNode | null>();
  const created: FolderNode[] = [];
  const results: Record<string, FolderItemOutcome> = {};
  const visiting = new Set<string>();

  const fail = (id: string, message: string) => {
    results[id] = { success: false, id, message };
    made.set(id, null);
    return null;
  };

  const resolve = (index: number): FolderNode | null => {
    const item = items[index]!;
    const id = item.folderId;
    if (made.has(id)) return made.get(id) ?? null;
    if (existing.has(id)) return fail(id, FOLDER_MESSAGES.exists);
    const parentId = item.parentFolderId ?? ROOT;
    let parent: Parent | null | undefined = parentId === ROOT ? rootNode : existing.get(parentId);
    if (parent === undefined) {
      const parentIndex = indexOf.get(parentId);
      if (parentIndex === undefined) return fail(id, FOLDER_MESSAGES.parentMissing);
      if (visiting.has(parentId)) throw cycleError(index, parentId);
      visiting.add(id);
      parent = resolve(parentIndex);
      visiting.delete(id);
      if (parent === null) return fail(id, FOLDER_MESSAGES.parentMissing);
    }
    // Stored depth is 0-based: a top-level folder is level 1.
    if (parent.depth + 2 > maxLevels) return fail(id, tooDeep(maxLevels));
    const node: FolderNode = {
      folderId: id,
      folderName: item.folderName ?? id,
      parentFolderId: parentId,
      ancestors: parent.folderId === ROOT ? [ROOT] : [...parent.ancestors, parent.folderId],
      accessType: item.accessType ?? parent.accessType,
      inheritAccessFromParent: item.accessType === undefined,
      path: parent.path + pathKey(keyOf(index)),
      depth: parent.depth + 1,
      createdAt: now,
      lastUpdated: now,
    };
    made.set(id, node);
    created.push(node);
    results[id] = { success: true, id, message: FOLDER_MESSAGES.added };
    return node;
  };

  items.forEach((_item, index) => {
    resolve(index);
  });
  return {
    created,
    results: Object.fromEntries(items.map((item) => [item.folderId, results[item.folderId]!])),
  };
}

function cycleError(index: number, parentId: string) {
  const field = `data.folders[${index}].parentFolderId`;
  return invalidArgument(
    `${field} makes a cycle: folder ${JSON.stringify(parentId)} is among its own ancestors.`,
    [{ field, message: "Folders in one request must not form a cycle." }],
  );
}
