import { type Kysely, PostgresAdapter, sql } from "kysely";
import { usageTriggers } from "./usage-triggers.js";

/**
 * User groups and the notification service (docs/compatibility.md "User groups",
 * "Notification service").
 *
 * - `user_groups`: one row per group of an organization; `user_group_members`: one per
 *   (group, user). A group means its members at read time, so nothing else stores them.
 *   Lookups: a group's members and "is user U in one of these groups" by the primary key
 *   (workspace, organization, group, user); erasure and organization-level reads of one
 *   user by `user_group_members_by_user` (workspace, organization, user, group).
 * - `notification_service_configs`: the workspace's notification service configuration
 *   (one row per workspace, JSON).
 * - `notification_batches`: the batch a recipient's next notification joins, one row per
 *   (organization, user, document; `''` for the user batch), pointing at the notification
 *   it fills until `closes_at` or `max` events.
 *
 * Groups, members and batch rows count as records (the same triggers as migration 0017).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("user_groups")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("group_id", "text", (c) => c.notNull())
    .addColumn("group_name", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("user_groups_pk", ["workspace_id", "organization_id", "group_id"])
    .execute();
  await db.schema
    .createTable("user_group_members")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("group_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("user_group_members_pk", [
      "workspace_id",
      "organization_id",
      "group_id",
      "user_id",
    ])
    .execute();
  await db.schema
    .createIndex("user_group_members_by_user")
    .on("user_group_members")
    .columns(["workspace_id", "organization_id", "user_id", "group_id"])
    .execute();
  await db.schema
    .createTable("notification_service_configs")
    .addColumn("workspace_id", "text", (c) => c.notNull().primaryKey())
    .addColumn("config", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("notification_batches")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("notification_id", "text", (c) => c.notNull())
    .addColumn("closes_at", "bigint", (c) => c.notNull())
    .addColumn("events", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("notification_batches_pk", [
      "workspace_id",
      "organization_id",
      "user_id",
      "document_id",
    ])
    .execute();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [table, bytes] of COUNTED) {
    for (const statement of usageTriggers(postgres, table, bytes)) {
      await sql.raw(statement).execute(db);
    }
  }
}

/** Each row is one record; a group's name also counts as stored bytes. */
const COUNTED: readonly (readonly [table: string, bytes: string | null])[] = [
  ["user_groups", "group_name"],
  ["user_group_members", null],
  ["notification_batches", null],
];
