import type { Kysely } from "kysely";

/**
 * Notifications with a per-recipient table, documents placed in folders, and access
 * grants. Every key and index begins with workspace_id (docs/architecture.md "Conventions"); each list query
 * walks one index in (timestamp, id) order, so a page costs about the page.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("notifications")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("document_id", "text")
    .addColumn("location_id", "text")
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("record", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("notifications_pk", ["workspace_id", "organization_id", "id"])
    .execute();

  // One row per (notification, recipient): a user's list, unread list and For You list are each
  // one range of an index, however many notifications the organization holds.
  await db.schema
    .createTable("notification_recipients")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("notification_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .addColumn("document_id", "text")
    .addColumn("location_id", "text")
    .addColumn("is_read", "integer", (c) => c.notNull())
    .addColumn("in_for_you", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("notification_recipients_pk", [
      "workspace_id",
      "organization_id",
      "notification_id",
      "user_id",
    ])
    .execute();

  await db.schema
    .createTable("documents")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("folder_id", "text")
    .addColumn("access_type", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("documents_pk", ["workspace_id", "organization_id", "id"])
    .execute();

  // The access check reads grants by resource (the primary key); permissions get reads them by user.
  await db.schema
    .createTable("access_grants")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("resource_type", "text", (c) => c.notNull())
    .addColumn("resource_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("access_role", "text", (c) => c.notNull())
    .addColumn("expires_at", "bigint")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("access_grants_pk", [
      "workspace_id",
      "organization_id",
      "resource_type",
      "resource_id",
      "user_id",
    ])
    .execute();

  const org = ["workspace_id", "organization_id"];
  const recipient = [...org, "user_id"];
  for (const [name, table, columns] of [
    ["notifications_by_org", "notifications", [...org, "timestamp", "id"]],
    ["notifications_by_document", "notifications", [...org, "document_id", "timestamp", "id"]],
    ["notifications_by_location", "notifications", [...org, "document_id", "location_id", "timestamp", "id"]],
    ["recipients_by_user", "notification_recipients", [...recipient, "timestamp", "notification_id"]],
    [
      "recipients_unread",
      "notification_recipients",
      [...recipient, "is_read", "timestamp", "notification_id"],
    ],
    [
      "recipients_for_you",
      "notification_recipients",
      [...recipient, "in_for_you", "timestamp", "notification_id"],
    ],
    ["documents_by_folder", "documents", [...org, "folder_id", "id"]],
    ["access_grants_by_user", "access_grants", [...org, "user_id", "resource_type", "resource_id"]],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on(table)
      .columns([...columns])
      .execute();
  }
}
