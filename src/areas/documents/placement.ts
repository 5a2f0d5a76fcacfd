import type { Kysely } from "kysely";
import type { DocumentRow, Tables } from "../../db/tables.js";

type Db = Kysely<Tables>;

export type AccessType = "organizationPrivate" | "restricted" | "public";

/** Where a document sits now and the access it has there, read at the time of asking. */
export interface Placement {
  /** The document's folder followed by that folder's ancestors (without `root`); empty at the root. */
  readonly folderChain: readonly string[];
  /** The document's own accessType, else its folder's effective one, else organizationPrivate. */
  readonly accessType: AccessType;
  readonly inheritAccessFromParent: boolean;
}

/**
 * Resolves a document's folder ancestry and effective access from the folder tree as it
 * is now, never from a copy, so a folder move or access change is seen by the next check.
 * A folder that no longer exists places the document at the root.
 */
export async function resolvePlacement(
  db: Db,
  document: Pick<DocumentRow, "workspace_id" | "organization_id" | "folder_id" | "access_type"> | null,
): Promise<Placement> {
  const folder =
    document?.folder_id != null
      ? await readFolder(db, document.workspace_id, document.organization_id, document.folder_id)
      : null;
  const own = (document?.access_type ?? null) as AccessType | null;
  return {
    folderChain: folder ? [folder.folderId, ...folder.ancestors.filter((id) => id !== "root")] : [],
    accessType: own ?? folder?.accessType ?? "organizationPrivate",
    inheritAccessFromParent: own === null,
  };
}

interface FolderAccess {
  readonly folderId: string;
  readonly ancestors: readonly string[];
  readonly accessType: AccessType;
}

/** A read-only look at the folders table (owned by the folders area): ancestry and effective access. */
async function readFolder(
  db: Db,
  workspaceId: string,
  organizationId: string,
  folderId: string,
): Promise<FolderAccess | null> {
  const row = await db
    .selectFrom("folders")
    .select(["folder_id", "ancestors", "access_type"])
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("folder_id", "=", folderId)
    .executeTakeFirst();
  if (!row) return null;
  return {
    folderId: row.folder_id,
    ancestors: JSON.parse(row.ancestors) as string[],
    accessType: row.access_type as AccessType,
  };
}
