import type { Kysely } from "kysely";

/**
 * Workspace configuration over the API (docs/compatibility.md "Workspace configuration").
 *
 * - `workspace_configs`: one row per workspace that ever configured its activity log or its
 *   API key settings. `activity_config` (JSON: `immutable`, `enabledTime`, `triggers`) is null
 *   until the first activityconfig update, which is what "seed on first enable" reads;
 *   `apikey_config` (JSON: `enablePrivateComments`, `requireJwtToken`, `requireAutoOrgUser`,
 *   `ownerEmail`) is null until first set. The activity switch itself stays
 *   `workspaces.activity_service` (the CLI's), and the default access type
 *   `workspaces.default_access_type`.
 * - `activities.immutable`: 1 for a record that update, delete and add-by-id must leave as it
 *   is (sent with `immutable: true`, or written while the configuration said so). A constant
 *   default: PostgreSQL adds it without rewriting the table.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("workspace_configs")
    .addColumn("workspace_id", "text", (c) => c.notNull().primaryKey())
    .addColumn("activity_config", "text")
    .addColumn("apikey_config", "text")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .alterTable("activities")
    .addColumn("immutable", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
