import { fixedBatches } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { DocumentRow } from "../../db/tables.js";
import { keysetTail } from "../../lib/paging.js";
import { normalize } from "../hierarchy/documents.js";
import { ROOT } from "../hierarchy/paths.js";
import type { Placement } from "../hierarchy/placement.js";

type Db = Readable;

export { existingDocumentIds } from "../hierarchy/documents.js";

export async function insertDocuments(db: WriteTx, rows: readonly DocumentRow[]): Promise<void> {
  // Few distinct texts (db/batches.ts).
  for (const part of fixedBatches(rows)) await db.insertInto("documents").values(part).execute();
}

export interface DocumentFilter {
  readonly workspaceId: string;
  readonly organizationId: string;
  /** A folder id, or null for documents at the root; absent for every document. */
  readonly folderId?: string | null;
  readonly ids?: readonly string[];
}

/** One keyset page of documents in id order (the primary key, or the folder index with a folder). */
export async function listDocuments(
  db: Db,
  filter: DocumentFilter,
  after: string | null,
  limit: number,
): Promise<{ rows: DocumentRow[]; next: string | null }> {
  let query = db
    .selectFrom("documents")
    .selectAll()
    .where("workspace_id", "=", filter.workspaceId)
    .where("organization_id", "=", filter.organizationId);
  if (filter.folderId === null) query = query.where("folder_id", "is", null);
  else if (filter.folderId !== undefined) query = query.where("folder_id", "=", filter.folderId);
  if (filter.ids) query = query.where("id", "in", [...filter.ids]);
  if (after !== null) query = query.where("id", ">", after);
  const rows = (
    await query
      .orderBy("id")
      .limit(limit + 1)
      .execute()
  ).map(normalize);
  return keysetTail(rows, limit, (last) => last.id);
}

/** A document as get returns it; `accessType` is the effective one at the time of the read. */
export interface DocumentView {
  documentId: string;
  documentName: string;
  organizationId: string;
  apiKey: string;
  folderId: string;
  accessType: string;
  inheritAccessFromParent: boolean;
  createdAt: number;
  lastUpdated: number;
}

/** The stored row and its placement (effective access) as get returns them. */
export function rowToDocument(row: DocumentRow, placement: Placement): DocumentView {
  return {
    documentId: row.id,
    documentName: row.name ?? row.id,
    organizationId: row.organization_id,
    apiKey: row.workspace_id,
    folderId: row.folder_id ?? ROOT,
    accessType: placement.accessType,
    inheritAccessFromParent: placement.inheritAccessFromParent,
    createdAt: row.created_at,
    lastUpdated: row.last_updated,
  };
}
