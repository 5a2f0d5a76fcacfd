import { type Kysely, PostgresAdapter, sql } from "kysely";
import { usageTriggers } from "./usage-triggers.js";

/**
 * Users (docs/contract.md "Users"): one profile per user and organization, and memberships at
 * organization, folder or document level. Grants keep their 0.1 storage (expires_at in
 * epoch ms), so no data moves. Both tables count in the record and byte quotas like
 * every other table (migration 0007's scheme: row triggers on SQLite, shard-spread
 * statement triggers on PostgreSQL).
 *
 * Lookups and the index that serves each (docs/query-plans.md, "users"):
 * - users at one level, in userId order; `userIds` at a level; notifyAll's organization
 *   users; the access check's memberships on a document's chain: user_memberships_pk
 *   (workspace, organization, level, level_id, user_id).
 * - allDocuments (every document-level user, by document then user): the same key's
 *   (workspace, organization, level) prefix.
 * - permissions get, organization-level delete and erasure (all rows of user U in
 *   organization O): user_memberships_by_user; profiles by their primary key.
 * - the organizations of user U (erasure without organizationIds): user_profiles_by_user,
 *   access_grants_by_workspace_user.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("user_profiles")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("profile", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("user_profiles_pk", ["workspace_id", "organization_id", "user_id"])
    .execute();
  await db.schema
    .createTable("user_memberships")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("level", "text", (c) => c.notNull())
    .addColumn("level_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("access_role", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("user_memberships_pk", [
      "workspace_id",
      "organization_id",
      "level",
      "level_id",
      "user_id",
    ])
    .execute();
  for (const [name, table, columns] of [
    [
      "user_memberships_by_user",
      "user_memberships",
      ["workspace_id", "organization_id", "user_id", "level", "level_id"],
    ],
    // Erasure (docs/contract.md "User data") names users without their organizations: find them in one range each.
    ["user_profiles_by_user", "user_profiles", ["workspace_id", "user_id"]],
    ["access_grants_by_workspace_user", "access_grants", ["workspace_id", "user_id"]],
  ] as const) {
    await db.schema
      .createIndex(name)
      .on(table)
      .columns([...columns])
      .execute();
  }
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const [table, bytes] of COUNTED) {
    for (const statement of usageTriggers(postgres, table, bytes)) {
      await sql.raw(statement).execute(db);
    }
  }
}

/** Each row is one record; a profile's JSON also counts as stored bytes (README "Quotas"). */
const COUNTED: readonly (readonly [table: string, bytes: string | null])[] = [
  ["user_profiles", "profile"],
  ["user_memberships", null],
];

/** Usage of the users tables counted from the rows (the quota tests' recount adds it to 0007's). */
export function userUsageCounts(workspaceId: string) {
  return sql<{ records: number | string; bytes: number | string }>`
    select
      (select count(*) from user_profiles where workspace_id = ${workspaceId})
        + (select count(*) from user_memberships where workspace_id = ${workspaceId}) as records,
      coalesce((select sum(octet_length(profile)) from user_profiles where workspace_id = ${workspaceId}), 0) as bytes`;
}
