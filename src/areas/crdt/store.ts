import type { Readable, WriteTx } from "../../db/handles.js";
import type { CrdtDocumentRow } from "../../db/tables.js";
import { lockedForUpdate } from "../../db/transactions.js";

export type StoreRow = CrdtDocumentRow;

export interface DocumentKey {
  readonly workspaceId: string;
  readonly organizationId: string;
  readonly documentId: string;
}

/** One store, or undefined. `forUpdate` locks it until commit (PostgreSQL): writes of one store queue. */
export async function findStore(
  db: Readable,
  key: DocumentKey,
  editorId: string,
  forUpdate = false,
): Promise<StoreRow | undefined> {
  const query = db
    .selectFrom("crdt_documents")
    .selectAll()
    .where("workspace_id", "=", key.workspaceId)
    .where("organization_id", "=", key.organizationId)
    .where("document_id", "=", key.documentId)
    .where("editor_id", "=", editorId);
  const row = await (forUpdate ? lockedForUpdate(db, query) : query).executeTakeFirst();
  return row && normalize(row);
}

/** Numbers as numbers (PostgreSQL's bigint arrives as text). */
function normalize(row: StoreRow): StoreRow {
  return {
    ...row,
    version: Number(row.version),
    created_at: Number(row.created_at),
    last_updated: Number(row.last_updated),
    event_due: row.event_due === null ? null : Number(row.event_due),
  };
}

/** Inserts a new store; false when the editor id is taken. */
export async function insertStore(trx: WriteTx, row: StoreRow): Promise<boolean> {
  const inserted = await trx
    .insertInto("crdt_documents")
    .values(row)
    .onConflict((oc) =>
      oc.columns(["workspace_id", "organization_id", "document_id", "editor_id"]).doNothing(),
    )
    .returning("id")
    .execute();
  return inserted.length === 1;
}

/** Writes a store's new state (when given) and what goes with it; no other column. */
export async function updateStore(
  trx: WriteTx,
  row: StoreRow,
  change: Pick<
    StoreRow,
    "version" | "last_updated_by" | "session_id" | "last_updated" | "event_id" | "event_due"
  > &
    Partial<Pick<StoreRow, "state">>,
): Promise<void> {
  const { state, version, last_updated_by, session_id, last_updated, event_id, event_due } = change;
  await trx
    .updateTable("crdt_documents")
    .set({
      ...(state === undefined ? {} : { state }),
      version,
      last_updated_by,
      session_id,
      last_updated,
      event_id,
      event_due,
    })
    .where("workspace_id", "=", row.workspace_id)
    .where("organization_id", "=", row.organization_id)
    .where("document_id", "=", row.document_id)
    .where("editor_id", "=", row.editor_id)
    .execute();
}

/** How many stores the document holds (index only: the primary key's prefix). */
export async function countStores(db: Readable, key: DocumentKey): Promise<number> {
  const row = await db
    .selectFrom("crdt_documents")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_id", "=", key.workspaceId)
    .where("organization_id", "=", key.organizationId)
    .where("document_id", "=", key.documentId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Up to `limit` stores of the document after `after` (an editorId), by editorId. */
export async function listStores(
  db: Readable,
  key: DocumentKey,
  after: string | null,
  limit: number,
): Promise<StoreRow[]> {
  let query = db
    .selectFrom("crdt_documents")
    .selectAll()
    .where("workspace_id", "=", key.workspaceId)
    .where("organization_id", "=", key.organizationId)
    .where("document_id", "=", key.documentId);
  if (after !== null) query = query.where("editor_id", ">", after);
  const rows = await query.orderBy("editor_id").limit(limit).execute();
  return rows.map(normalize);
}
