import { type Kysely, PostgresAdapter, sql } from "kysely";
import { usageTriggers } from "./usage-triggers.js";

/**
 * Folder deletes as durable jobs (src/areas/hierarchy/sweep.ts): `folder_tombstones` holds
 * each folder of a deleted subtree whose documents a delete job is still sweeping. The
 * folder rows go with the request; the documents placed in them stay hidden through these
 * rows (documents listing, operations naming them are refused: src/areas/hierarchy/tombstones.ts)
 * until the job has swept them, and the ids cannot be used again meanwhile. Counted like
 * `tombstones` (one record each), with the same triggers.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema
    .createTable("folder_tombstones")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("folder_id", "text", (c) => c.notNull())
    .addColumn("job_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("folder_tombstones_pk", ["workspace_id", "organization_id", "folder_id"])
    .execute();
  for (const statement of usageTriggers(postgres, "folder_tombstones", null)) {
    await sql.raw(statement).execute(db);
  }
}
