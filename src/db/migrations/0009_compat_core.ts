import { type Kysely, sql } from "kysely";

/**
 * The compatibility core (docs/contract.md "Notifications", "Webhook configuration"). Webhook configurations gain `enableDataProtection`
 * (stored only) and `payloadFormat` (`basic` for every existing workspace). Notification
 * records stored by collabd 0.1 held recipients as an array of users in `notifyUsers`; the
 * original's clients read a map `userId → true` there, so each record is rewritten to
 * the current shape: `notifyUsers` and `notifyUsersByUserId` maps, the users themselves in
 * `notifyUserObjects`, and `notificationSourceData` `{}` when it was never set. Rows go in
 * keyset batches, so a large table never sits in memory at once; the quota triggers of
 * 0007 account the changed sizes. A location alone now narrows a list: it gets an index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("webhook_configs")
    .addColumn("enable_data_protection", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("webhook_configs")
    .addColumn("payload_format", "text", (c) => c.notNull().defaultTo("basic"))
    .execute();

  // A location narrows the organization without a document now: its own index range.
  await db.schema
    .createIndex("notifications_by_location_only")
    .on("notifications")
    .columns(["workspace_id", "organization_id", "location_id", "timestamp", "id"])
    .execute();

  let after: [string, string, string] | null = null;
  for (;;) {
    const tail: ReturnType<typeof sql> = after
      ? sql`where (workspace_id, organization_id, id) > (${after[0]}, ${after[1]}, ${after[2]})`
      : sql``;
    const { rows }: { rows: NotificationRow[] } = await sql<NotificationRow>`
      select workspace_id, organization_id, id, record from notifications ${tail}
      order by workspace_id, organization_id, id limit ${sql.lit(BATCH)}`.execute(db);
    for (const row of rows) {
      const record = currentRecord(row.record);
      if (record === null) continue;
      await sql`update notifications set record = ${record}
        where workspace_id = ${row.workspace_id} and organization_id = ${row.organization_id}
        and id = ${row.id}`.execute(db);
    }
    const last: NotificationRow | undefined = rows.at(-1);
    if (!last || rows.length < BATCH) return;
    after = [last.workspace_id, last.organization_id, last.id];
  }
}

const BATCH = 500;

interface NotificationRow {
  readonly workspace_id: string;
  readonly organization_id: string;
  readonly id: string;
  readonly record: string;
}

/**
 * The record in the current shape, or null when it already is (a record written after
 * this migration, or one this migration already converted). Exported for the tests.
 */
export function currentRecord(text: string): string | null {
  const record = JSON.parse(text) as Record<string, unknown>;
  if (!Array.isArray(record.notifyUsers)) return null;
  const users = record.notifyUsers as { userId: string }[];
  const ids = Object.fromEntries(users.map((user) => [user.userId, true]));
  const { notifyUsers: _array, readByUserIds, metadata, timestamp, lastUpdated, ...rest } = record;
  return JSON.stringify({
    ...rest,
    notificationSourceData: rest.notificationSourceData ?? {},
    notifyUsers: ids,
    notifyUsersByUserId: { ...ids },
    notifyUserObjects: users,
    readByUserIds,
    metadata,
    timestamp,
    lastUpdated,
  });
}
