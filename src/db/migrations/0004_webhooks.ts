import { type Kysely, sql } from "kysely";

/**
 * Webhooks (docs/webhooks.md): one configuration row per workspace (secrets sealed at rest),
 * the transactional outbox (events and their deliveries) and the attempt log.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("webhook_configs")
    .addColumn("workspace_id", "text", (c) => c.primaryKey())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("auth_token", "text")
    .addColumn("raw_url", "text")
    .addColumn("processed_url", "text")
    .addColumn("encode_data", "integer", (c) => c.notNull())
    .addColumn("encrypt_data", "integer", (c) => c.notNull())
    .addColumn("public_key", "text")
    .addColumn("triggers", "text", (c) => c.notNull())
    .addColumn("defaults_applied", "integer", (c) => c.notNull())
    .addColumn("signing_secret", "text", (c) => c.notNull())
    .addColumn("previous_signing_secret", "text")
    .addColumn("previous_secret_expires_at", "bigint")
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("webhook_events")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("webhook_events_pk", ["workspace_id", "id"])
    .execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("step", "integer", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_attempt_at", "bigint")
    .addColumn("claim", "text")
    .addColumn("last_http_status", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("webhook_deliveries_pk", ["workspace_id", "id"])
    .execute();

  // The delivery log pages by (created_at, id) within a workspace.
  await db.schema
    .createIndex("webhook_deliveries_log")
    .on("webhook_deliveries")
    .columns(["workspace_id", "created_at", "id"])
    .execute();

  // The worker's queue: only live deliveries, by due time, across workspaces. The one index
  // that does not start with workspace_id (docs/decisions.md): it serves no request, only
  // the claim, and a distributed engine answers it by fanning out to every shard.
  await sql`create index webhook_deliveries_due on webhook_deliveries (next_attempt_at)
    where status in ('pending', 'delivering')`.execute(db);

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("delivery_id", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("started_at", "bigint", (c) => c.notNull())
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("http_status", "integer")
    .addColumn("error", "text")
    .addPrimaryKeyConstraint("webhook_attempts_pk", ["workspace_id", "delivery_id", "attempt"])
    .execute();
}
