import type { Kysely } from "kysely";

/** Workspaces, their auth tokens, and activity logs with one index per filter family. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("workspaces")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("activity_service", "integer", (c) => c.notNull())
    .addColumn("advanced_queries", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("auth_tokens")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("auth_tokens_pk", ["workspace_id", "token_hash"])
    .execute();

  await db.schema
    .createTable("activities")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("target_entity_id", "text")
    .addColumn("feature_type", "text", (c) => c.notNull())
    .addColumn("action_type", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("record", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("activities_pk", ["workspace_id", "organization_id", "id"])
    .execute();

  // Each list query walks one of these in (timestamp, id) order: cost follows the page, not the table.
  const byOrg = ["workspace_id", "organization_id"];
  for (const [name, columns] of [
    ["activities_by_org", [...byOrg, "timestamp", "id"]],
    ["activities_by_document", [...byOrg, "document_id", "timestamp", "id"]],
    ["activities_by_target", [...byOrg, "target_entity_id", "timestamp", "id"]],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on("activities")
      .columns([...columns])
      .execute();
  }
}
