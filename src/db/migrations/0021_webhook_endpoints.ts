import { type Kysely, PostgresAdapter, sql } from "kysely";
import { usageTriggers } from "./usage-triggers.js";

/**
 * Advanced webhooks (docs/webhooks.md "Advanced webhooks"): one configuration row per
 * workspace (written by the first enable), any number of endpoints, each with its own
 * sealed `whsec_` secret, and the endpoint a delivery goes to. An endpoint is one record
 * of the workspace's usage and its settings JSON counts as bytes (the triggers of
 * migrations 0011 and 0017).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("advanced_webhook_configs")
    .addColumn("workspace_id", "text", (c) => c.primaryKey())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("encode_data", "integer", (c) => c.notNull())
    .addColumn("encrypt_data", "integer", (c) => c.notNull())
    .addColumn("public_key", "text")
    .addColumn("enable_data_protection", "integer", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("uid", "text")
    .addColumn("settings", "text", (c) => c.notNull())
    .addColumn("disabled", "integer", (c) => c.notNull())
    .addColumn("disabled_reason", "text")
    .addColumn("failing_since", "bigint")
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("webhook_endpoints_pk", ["workspace_id", "id"])
    .execute();
  // A uid names one endpoint of its workspace; endpoints without one (null) do not collide.
  await db.schema
    .createIndex("webhook_endpoints_uid")
    .on("webhook_endpoints")
    .columns(["workspace_id", "uid"])
    .unique()
    .execute();

  await db.schema.alterTable("webhook_deliveries").addColumn("endpoint_id", "text").execute();

  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const statement of usageTriggers(postgres, "webhook_endpoints", "settings")) {
    await sql.raw(statement).execute(db);
  }
}
