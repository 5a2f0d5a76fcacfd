import { type Kysely, PostgresAdapter, sql } from "kysely";

/**
 * Organizations, the folder tree and recording annotations (docs/decisions.md,
 * "Organizations, folders, recordings").
 *
 * Folders are an adjacency list (`parent_folder_id`) plus a materialized path of
 * short fixed-width keys: a subtree is one `path` range, a subtree to depth N is one
 * range per level on `(depth, path)`, so reads and moves cost what they touch. The
 * path must compare bytewise: PostgreSQL gets `collate "C"`, SQLite's default is binary.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const bytewiseText = postgres ? sql`text collate "C"` : sql`text`;

  await db.schema
    .createTable("organizations")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("organization_name", "text")
    // Allocates folder path keys; updating it is also the per-organization lock of tree writes.
    .addColumn("folder_seq", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("organizations_pk", ["workspace_id", "organization_id"])
    .execute();

  await db.schema
    .createTable("folders")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("folder_id", "text", (c) => c.notNull())
    .addColumn("parent_folder_id", "text", (c) => c.notNull())
    .addColumn("path", bytewiseText, (c) => c.notNull())
    .addColumn("depth", "integer", (c) => c.notNull())
    .addColumn("ancestors", "text", (c) => c.notNull())
    .addColumn("folder_name", "text", (c) => c.notNull())
    .addColumn("access_type", "text", (c) => c.notNull())
    .addColumn("inherit_access", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("folders_pk", ["workspace_id", "organization_id", "folder_id"])
    .execute();
  const byOrg = ["workspace_id", "organization_id"];
  await db.schema
    .createIndex("folders_by_path")
    .unique()
    .on("folders")
    .columns([...byOrg, "path"])
    .execute();
  await db.schema
    .createIndex("folders_by_depth")
    .on("folders")
    .columns([...byOrg, "depth", "path"])
    .execute();

  await db.schema
    .createTable("recordings")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("annotation_id", "text", (c) => c.notNull())
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("latest_version", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addColumn("record", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("recordings_pk", ["workspace_id", "organization_id", "annotation_id"])
    .execute();
  await db.schema
    .createIndex("recordings_by_org")
    .on("recordings")
    .columns([...byOrg, "created_at", "annotation_id"])
    .execute();
  await db.schema
    .createIndex("recordings_by_document")
    .on("recordings")
    .columns([...byOrg, "document_id", "created_at", "annotation_id"])
    .execute();
}
