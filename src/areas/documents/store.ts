import { fixedBatches, inListChunks } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { DocumentRow } from "../../db/tables.js";
import { findDocuments, normalize } from "../hierarchy/documents.js";
import { parseMetadata } from "../hierarchy/metadata.js";
import { ROOT } from "../hierarchy/paths.js";
import type { Placement } from "../hierarchy/placement.js";

type Db = Readable;

export { existingDocumentIds } from "../hierarchy/documents.js";

export async function insertDocuments(db: WriteTx, rows: readonly DocumentRow[]): Promise<void> {
  // Few distinct texts (db/batches.ts).
  for (const part of fixedBatches(rows)) await db.insertInto("documents").values(part).execute();
}

/** Inserts the rows whose id has no record yet; existing ones are left as they are. */
export async function insertMissingDocuments(db: WriteTx, rows: readonly DocumentRow[]): Promise<void> {
  for (const part of fixedBatches(rows)) {
    await db
      .insertInto("documents")
      .values(part)
      .onConflict((oc) => oc.columns(["workspace_id", "organization_id", "id"]).doNothing())
      .execute();
  }
}

export interface DocumentFilter {
  readonly workspaceId: string;
  readonly organizationId: string;
  /** A folder id, or null for documents at the root; absent for every document. */
  readonly folderId?: string | null;
  readonly ids?: readonly string[];
}

/** Up to `rows` documents after `after` in id order (the primary key, or the folder index with a folder). */
export async function listDocuments(
  db: Db,
  filter: DocumentFilter,
  after: string | null,
  rows: number,
): Promise<DocumentRow[]> {
  let query = db
    .selectFrom("documents")
    .selectAll()
    .where("workspace_id", "=", filter.workspaceId)
    .where("organization_id", "=", filter.organizationId);
  if (filter.folderId === null) query = query.where("folder_id", "is", null);
  else if (filter.folderId !== undefined) query = query.where("folder_id", "=", filter.folderId);
  if (filter.ids) query = query.where("id", "in", [...filter.ids]);
  if (after !== null) query = query.where("id", ">", after);
  // Documents of a deleted folder still being swept are gone from reads (hierarchy/sweep.ts).
  query = query.where(({ not, exists, selectFrom }) =>
    not(
      exists(
        selectFrom("folder_tombstones as f")
          .select("f.folder_id")
          .whereRef("f.workspace_id", "=", "documents.workspace_id")
          .whereRef("f.organization_id", "=", "documents.organization_id")
          .whereRef("f.folder_id", "=", "documents.folder_id"),
      ),
    ),
  );
  return (await query.orderBy("id").limit(rows).execute()).map(normalize);
}

/**
 * A document as get returns it (docs/contract.md "Documents"): `id`, name, `disabled`, effective
 * `accessType`, the metadata keys, then collabd's own fields.
 */
export interface DocumentView {
  id: string;
  documentId: string;
  documentName: string;
  disabled: boolean;
  [metadataKey: string]: unknown;
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
    id: row.id,
    documentId: row.id,
    documentName: row.name ?? row.id,
    disabled: Number(row.disabled) === 1,
    accessType: placement.accessType,
    ...parseMetadata(row.metadata),
    organizationId: row.organization_id,
    apiKey: row.workspace_id,
    folderId: row.folder_id ?? ROOT,
    inheritAccessFromParent: placement.inheritAccessFromParent,
    createdAt: row.created_at,
    lastUpdated: row.last_updated,
  };
}

/** The stored rows among `ids` of one organization, keyed by id (one lookup: hierarchy/documents.ts). */
export async function findDocumentRows(
  db: Db,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, DocumentRow>> {
  const rows = await findDocuments(db, workspaceId, organizationId, ids);
  return new Map(rows.map((row) => [row.id, row]));
}

/** Sets columns of some documents of one organization (name, metadata, folder, access, disabled). */
export async function updateDocumentRows(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
  change: Partial<Pick<DocumentRow, "name" | "metadata" | "folder_id" | "access_type" | "disabled">> & {
    now: number;
  },
): Promise<void> {
  const { now, ...columns } = change;
  for (const chunk of inListChunks(ids)) {
    await db
      .updateTable("documents")
      .set({ ...columns, last_updated: now })
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("id", "in", chunk)
      .execute();
  }
}

/** Deletes document records of one organization (their data goes with a delete job: hierarchy/sweep.ts). */
export async function deleteDocumentRows(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<void> {
  for (const chunk of inListChunks(ids)) {
    await db
      .deleteFrom("documents")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("id", "in", chunk)
      .execute();
  }
}
