import { type Kysely, sql } from "kysely";

/**
 * Organizations, folders and documents as the original has them (docs/contract.md
 * "Organizations", "Folders", "Documents"):
 * - `workspaces.default_access_type`: what top-level folders and folderless documents
 *   inherit. New workspaces get `public` (the original's default); every workspace that
 *   exists now gets `organizationPrivate`, the value collabd 0.1 hard-coded, so no
 *   access widens silently and the effective access stored on folders stays right;
 * - `metadata` (JSON text of the open item's other keys, null when none) and `disabled`
 *   on organizations and documents. 0.1 rows get null and 0: nothing to convert.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("workspaces")
    .addColumn("default_access_type", "text", (c) => c.notNull().defaultTo("public"))
    .execute();
  await sql`update workspaces set default_access_type = 'organizationPrivate'`.execute(db);
  for (const table of ["organizations", "documents"]) {
    await db.schema.alterTable(table).addColumn("metadata", "text").execute();
    await db.schema
      .alterTable(table)
      .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0))
      .execute();
  }
}
