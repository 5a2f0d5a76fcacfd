import { type Kysely, PostgresAdapter, sql } from "kysely";
import { usageTriggers } from "./usage-triggers.js";

/**
 * CRDT stores (docs/compatibility.md "CRDT"): one row per (organization, document, editor),
 * holding the Yjs state as base64 text, the store's type and shared-type name, who and
 * which session changed it last, a version bumped by every write (updates compute outside
 * the transaction and check it), and the `crdt.update_data` event still waiting to be sent
 * (its id and due time: later updates inside the wait replace it, docs/webhooks.md).
 *
 * Lookups: a store and a document's stores by the primary key; erasure and export of a
 * user's `last_updated_by` by `crdt_documents_by_user`. Each row is one record and its
 * state counts as stored bytes (the triggers of migrations 0011 and 0017).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("crdt_documents")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("editor_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("content_key", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("version", "integer", (c) => c.notNull())
    .addColumn("last_updated_by", "text")
    .addColumn("session_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addColumn("event_id", "text")
    .addColumn("event_due", "bigint")
    .addPrimaryKeyConstraint("crdt_documents_pk", [
      "workspace_id",
      "organization_id",
      "document_id",
      "editor_id",
    ])
    .execute();
  await db.schema
    .createIndex("crdt_documents_by_user")
    .on("crdt_documents")
    // Ordered as the privacy export walks it (document, editor), so a page reads in order, never sorts.
    .columns(["workspace_id", "last_updated_by", "organization_id", "document_id", "editor_id"])
    .execute();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const statement of usageTriggers(postgres, "crdt_documents", "state")) {
    await sql.raw(statement).execute(db);
  }
}
