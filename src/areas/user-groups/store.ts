import { inListChunks } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { UserGroupMemberRow, UserGroupRow } from "../../db/tables.js";
import { lockedForUpdate } from "../../db/transactions.js";

export interface GroupKey {
  readonly workspaceId: string;
  readonly organizationId: string;
}

/** Inserts groups, renaming those that exist (their members stay). */
export async function upsertGroups(trx: WriteTx, rows: readonly UserGroupRow[]): Promise<void> {
  await trx
    .insertInto("user_groups")
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(["workspace_id", "organization_id", "group_id"]).doUpdateSet((eb) => ({
        group_name: eb.ref("excluded.group_name"),
        last_updated: eb.ref("excluded.last_updated"),
      })),
    )
    .execute();
}

/** How many groups the organization holds (index only: the primary key's prefix). */
export async function countGroups(db: Readable, key: GroupKey): Promise<number> {
  const row = await db
    .selectFrom("user_groups")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_id", "=", key.workspaceId)
    .where("organization_id", "=", key.organizationId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The group's row, locked until commit (PostgreSQL): member writes of one group queue, so
 * the member cap is checked against a count no concurrent add can change.
 */
export async function lockGroup(trx: WriteTx, key: GroupKey, groupId: string): Promise<boolean> {
  const row = await lockedForUpdate(
    trx,
    trx
      .selectFrom("user_groups")
      .select("group_id")
      .where("workspace_id", "=", key.workspaceId)
      .where("organization_id", "=", key.organizationId)
      .where("group_id", "=", groupId),
  ).executeTakeFirst();
  return row !== undefined;
}

/** Adds members (an existing member stays as it is). */
export async function insertMembers(trx: WriteTx, rows: readonly UserGroupMemberRow[]): Promise<void> {
  await trx
    .insertInto("user_group_members")
    .values([...rows])
    .onConflict((oc) => oc.columns(["workspace_id", "organization_id", "group_id", "user_id"]).doNothing())
    .execute();
}

export async function countMembers(db: Readable, key: GroupKey, groupId: string): Promise<number> {
  const row = await db
    .selectFrom("user_group_members")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("workspace_id", "=", key.workspaceId)
    .where("organization_id", "=", key.organizationId)
    .where("group_id", "=", groupId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Removes the given members, or every member (`userIds` null); returns the users removed. */
export async function deleteMembers(
  trx: WriteTx,
  key: GroupKey,
  groupId: string,
  userIds: readonly string[] | null,
): Promise<string[]> {
  let query = trx
    .deleteFrom("user_group_members")
    .where("workspace_id", "=", key.workspaceId)
    .where("organization_id", "=", key.organizationId)
    .where("group_id", "=", groupId);
  if (userIds !== null) query = query.where("user_id", "in", [...userIds]);
  const rows = await query.returning("user_id").execute();
  return rows.map((r) => r.user_id).sort();
}

/**
 * The groups of `groupIds` each of `userIds` belongs to (a group means its members at read
 * time: docs/compatibility.md "User groups"). Reads at most |userIds| × |groupIds| primary-key
 * entries, never a whole group, so a large group makes a visibility check no dearer.
 */
export async function groupsOfUsers(
  db: Readable,
  key: GroupKey,
  groupIds: readonly string[],
  userIds: readonly string[],
): Promise<Map<string, Set<string>>> {
  const found = new Map<string, Set<string>>();
  if (groupIds.length === 0) return found;
  for (const part of inListChunks([...new Set(userIds)])) {
    const rows = await db
      .selectFrom("user_group_members")
      .select(["user_id", "group_id"])
      .where("workspace_id", "=", key.workspaceId)
      .where("organization_id", "=", key.organizationId)
      .where("group_id", "in", [...new Set(groupIds)])
      .where("user_id", "in", part)
      .execute();
    for (const row of rows) {
      const groups = found.get(row.user_id) ?? new Set<string>();
      groups.add(row.group_id);
      found.set(row.user_id, groups);
    }
  }
  return found;
}
