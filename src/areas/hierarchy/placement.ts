import type { Readable } from "../../db/handles.js";
import type { DocumentRow } from "../../db/tables.js";
import { type AccessType, ROOT } from "../hierarchy/paths.js";
import { type FolderNode, findFolders } from "./folders.js";

type Db = Readable;

type Placed = Pick<DocumentRow, "workspace_id" | "organization_id" | "id" | "folder_id" | "access_type">;

/** Where a document sits now and the access it has there, read at the time of asking. */
export interface Placement {
  /** The document's folder followed by that folder's ancestors (without `root`); empty at the root. */
  readonly folderChain: readonly string[];
  /** The document's own accessType, else its folder's effective one, else the workspace's defaultAccessType. */
  readonly accessType: AccessType;
  readonly inheritAccessFromParent: boolean;
}

/**
 * Resolves documents' folder ancestry and effective access from the folder tree as it is
 * now, never from a copy, so a folder move or access change is seen by the next check.
 * One folder read for all documents of one organization. A folder that no longer exists
 * places the document at the root, where it gets `rootAccess` (the workspace's defaultAccessType: docs/contract.md "Folders").
 */
export async function resolvePlacements(
  db: Db,
  workspaceId: string,
  organizationId: string,
  documents: readonly Placed[],
  rootAccess: AccessType,
): Promise<Map<string, Placement>> {
  const folderIds = [...new Set(documents.flatMap((d) => (d.folder_id === null ? [] : [d.folder_id])))];
  const folders = await findFolders(db, workspaceId, organizationId, folderIds);
  return new Map(
    documents.map((d) => [
      d.id,
      place(d, d.folder_id === null ? undefined : folders.get(d.folder_id), rootAccess),
    ]),
  );
}

/** The placement of one document; a document without a record sits at the root with inherited access. */
export async function resolvePlacement(
  db: Db,
  document: Placed | null,
  rootAccess: AccessType,
): Promise<Placement> {
  if (!document) return place(null, undefined, rootAccess);
  const { workspace_id, organization_id } = document;
  const placements = await resolvePlacements(db, workspace_id, organization_id, [document], rootAccess);
  return placements.get(document.id)!;
}

function place(document: Placed | null, folder: FolderNode | undefined, rootAccess: AccessType): Placement {
  const own = (document?.access_type ?? null) as AccessType | null;
  return {
    folderChain: folder ? [folder.folderId, ...folder.ancestors.filter((id) => id !== ROOT)] : [],
    accessType: own ?? folder?.accessType ?? rootAccess,
    inheritAccessFromParent: own === null,
  };
}
