import type { Readable } from "../../db/handles.js";
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
