import { inListChunks } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { DocumentRow } from "../../db/tables.js";

type Db = Readable;

export async function findDocument(
  db: Db,
  workspaceId: string,
  organizationId: string,
  documentId: string,
): Promise<DocumentRow | null> {
  const row = await db
    .selectFrom("documents")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("id", "=", documentId)
    .executeTakeFirst();
  return row ? normalize(row) : null;
}

/** The ids among `ids` that already exist in the organization. */
export async function existingDocumentIds(
  db: Db,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("documents")
    .select("id")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("id", "in", [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** bigint columns arrive as numbers on both dialects; this keeps the row type honest. */
export function normalize(row: DocumentRow): DocumentRow {
  return {
    ...row,
    created_at: Number(row.created_at),
    last_updated: Number(row.last_updated),
    disabled: Number(row.disabled),
  };
}

/**
 * Creates the document record at the organization's root when it does not exist (the
 * `createDocument` flag of notifications add and the comment operations:
 * docs/contract.md "Notifications", "Comments"). Without its own access type it inherits the root's.
 * Idempotent, so concurrent requests both succeed; the organization must exist.
 */
export async function ensureDocument(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  documentId: string,
  now: number,
): Promise<void> {
  await db
    .insertInto("documents")
    .values({
      workspace_id: workspaceId,
      organization_id: organizationId,
      id: documentId,
      name: documentId,
      folder_id: null,
      access_type: null,
      created_at: now,
      last_updated: now,
      metadata: null,
      disabled: 0,
    })
    .onConflict((oc) => oc.columns(["workspace_id", "organization_id", "id"]).doNothing())
    .execute();
}

/** The documents among `ids` that exist in the organization (the access rule and permissions get). */
export async function findDocuments(
  db: Db,
  workspaceId: string,
  organizationId: string,
  ids: readonly string[],
): Promise<DocumentRow[]> {
  const found: DocumentRow[] = [];
  for (const chunk of inListChunks(ids)) {
    const rows = await db
      .selectFrom("documents")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("id", "in", chunk)
      .execute();
    found.push(...rows.map(normalize));
  }
  return found;
}
