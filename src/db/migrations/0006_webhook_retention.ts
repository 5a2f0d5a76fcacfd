import { type Kysely, sql } from "kysely";

/**
 * Webhook retention and erasure (docs/webhooks.md):
 * - each event names the record it carries (`record_kind`, `record_id`), so deleting the
 *   record can find and erase its deliveries; events written before this migration carry
 *   none and simply age out under retention;
 * - finished deliveries are found by the time they finished, for the retention sweep.
 *   Like the claim's index it does not start with workspace_id: it serves no request, only
 *   the sweep (docs/decisions.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("webhook_events").addColumn("record_kind", "text").execute();
  await db.schema.alterTable("webhook_events").addColumn("record_id", "text").execute();
  await db.schema
    .createIndex("webhook_events_record")
    .on("webhook_events")
    .columns(["workspace_id", "organization_id", "record_id"])
    .execute();
  await sql`create index webhook_deliveries_finished on webhook_deliveries (updated_at)
    where status in ('succeeded', 'failed')`.execute(db);
}
