import { fixedBatches, foundAmong, inListChunks } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { AccessGrantRow, UserMembershipRow, UserProfileRow } from "../../db/tables.js";
import { invalidArgument } from "../../errors.js";
import { levelChunks } from "../hierarchy/levels.js";

type Db = Readable;

/** Where a membership sits: the organization itself, or one folder or document of it. */
export type Level = "organization" | "folder" | "document";

/** A level and its id; an organization level has id = organizationId. */
export interface LevelRef {
  readonly level: Level;
  readonly id: string;
}

/** A member as users get lists it: the membership and the profile (null if erased meanwhile). */
export interface MemberRow {
  readonly level_id: string;
  readonly user_id: string;
  readonly access_role: string;
  readonly profile: string | null;
}

/** Inserts profiles or replaces existing ones whole (users add and update send the full object). */
export async function upsertProfiles(db: WriteTx, rows: readonly UserProfileRow[]): Promise<void> {
  for (const part of fixedBatches(rows)) {
    await db
      .insertInto("user_profiles")
      .values(part)
      .onConflict((oc) =>
        oc.columns(["workspace_id", "organization_id", "user_id"]).doUpdateSet((eb) => ({
          profile: eb.ref("excluded.profile"),
          last_updated: eb.ref("excluded.last_updated"),
        })),
      )
      .execute();
  }
}

/** Inserts memberships or replaces the role of existing ones. */
export async function upsertMemberships(db: WriteTx, rows: readonly UserMembershipRow[]): Promise<void> {
  for (const part of fixedBatches(rows)) {
    await db
      .insertInto("user_memberships")
      .values(part)
      .onConflict((oc) =>
        oc.columns(["workspace_id", "organization_id", "level", "level_id", "user_id"]).doUpdateSet((eb) => ({
          access_role: eb.ref("excluded.access_role"),
          last_updated: eb.ref("excluded.last_updated"),
        })),
      )
      .execute();
  }
}

/** The users among `userIds` who are members at the level. */
export async function membersAmong(
  db: Db,
  workspaceId: string,
  organizationId: string,
  at: LevelRef,
  userIds: readonly string[],
): Promise<Set<string>> {
  return foundAmong(
    userIds,
    (chunk) =>
      db
        .selectFrom("user_memberships")
        .select("user_id")
        .where("workspace_id", "=", workspaceId)
        .where("organization_id", "=", organizationId)
        .where("level", "=", at.level)
        .where("level_id", "=", at.id)
        .where("user_id", "in", chunk)
        .execute(),
    (row) => row.user_id,
  );
}

/**
 * One keyset page of members. With `at`, the members of that level in userId order;
 * without, every document-level member of the organization in (documentId, userId) order
 * (users get `allDocuments`). Reads at most `rows` rows.
 */
export async function listMembers(
  db: Db,
  workspaceId: string,
  organizationId: string,
  filter: {
    at: LevelRef | null;
    userIds?: readonly string[] | undefined;
    /** Members of these groups at read time; with userIds, either matches (docs/decisions.md "User groups"). */
    groupIds?: readonly string[] | undefined;
    after: readonly [levelId: string, userId: string] | null;
    rows: number;
  },
): Promise<MemberRow[]> {
  let query = db
    .selectFrom("user_memberships as m")
    .leftJoin("user_profiles as p", (join) =>
      join
        .onRef("p.workspace_id", "=", "m.workspace_id")
        .onRef("p.organization_id", "=", "m.organization_id")
        .onRef("p.user_id", "=", "m.user_id"),
    )
    .select(["m.level_id", "m.user_id", "m.access_role", "p.profile"])
    .where("m.workspace_id", "=", workspaceId)
    .where("m.organization_id", "=", organizationId)
    .where("m.level", "=", filter.at?.level ?? "document");
  if (filter.at) query = query.where("m.level_id", "=", filter.at.id);
  const { userIds, groupIds } = filter;
  if (userIds || groupIds) {
    query = query.where((eb) =>
      eb.or([
        ...(userIds ? [eb("m.user_id", "in", [...userIds])] : []),
        ...(groupIds
          ? [
              eb(
                "m.user_id",
                "in",
                eb
                  .selectFrom("user_group_members as g")
                  .select("g.user_id")
                  .where("g.workspace_id", "=", workspaceId)
                  .where("g.organization_id", "=", organizationId)
                  .where("g.group_id", "in", [...groupIds]),
              ),
            ]
          : []),
      ]),
    );
  }
  const after = filter.after;
  if (after) {
    // A row comparison: both dialects seek the primary key to it (an OR of two ranges would not).
    query = query.where((eb) =>
      eb(eb.refTuple("m.level_id", "m.user_id"), ">", eb.tuple(after[0], after[1])),
    );
  }
  return query.orderBy("m.level_id").orderBy("m.user_id").limit(filter.rows).execute();
}

/** Removes the users' memberships at one level; returns the users who had one. */
export async function deleteMemberships(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  at: LevelRef,
  userIds: readonly string[],
): Promise<Set<string>> {
  const rows = await db
    .deleteFrom("user_memberships")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("level", "=", at.level)
    .where("level_id", "=", at.id)
    .where("user_id", "in", [...userIds])
    .returning("user_id")
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

/**
 * Up to `limit` organization-level users of an organization, in userId order: one range of
 * the memberships key (notifications add `notifyAll`).
 */
export async function organizationUserIds(
  db: Db,
  workspaceId: string,
  organizationId: string,
  limit: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom("user_memberships")
    .select("user_id")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("level", "=", "organization")
    .where("level_id", "=", organizationId)
    .orderBy("user_id")
    .limit(limit)
    .execute();
  return rows.map((r) => r.user_id);
}

/**
 * The memberships of some users in one organization, optionally only on some levels
 * (the access rule and permissions get). Memberships never expire.
 */
export async function membershipsOfUsers(
  db: Db,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
  levels: readonly LevelRef[] | undefined,
  limit: number,
): Promise<UserMembershipRow[]> {
  if (userIds.length === 0 || levels?.length === 0) return [];
  let query = db
    .selectFrom("user_memberships")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .where("user_id", "in", [...userIds]);
  if (levels) {
    query = query.where((eb) =>
      eb.or(levels.map((l) => eb.and([eb("level", "=", l.level), eb("level_id", "=", l.id)]))),
    );
  }
  return query.orderBy("user_id").orderBy("level").orderBy("level_id").limit(limit).execute();
}

// ---------------------------------------------------------------------------------------
// All rows of user U in organization O: for users delete at organization level, and for
// user-data export and erasure (docs/contract.md "User data"). Each takes one user and one organization.
// ---------------------------------------------------------------------------------------

/** Everything stored about user U in organization O by users and permissions. */
export interface UserRowsInOrganization {
  readonly profile: UserProfileRow | null;
  readonly memberships: UserMembershipRow[];
  readonly grants: AccessGrantRow[];
}

/** Export: user U's profile, memberships (every level) and grants (live or not) in organization O. */
export async function userRowsInOrganization(
  db: Db,
  workspaceId: string,
  organizationId: string,
  userId: string,
): Promise<UserRowsInOrganization> {
  const ofUser = { workspace_id: workspaceId, organization_id: organizationId, user_id: userId };
  const profile = await db
    .selectFrom("user_profiles")
    .selectAll()
    .where((eb) => eb.and(ofUser))
    .executeTakeFirst();
  const memberships = await db
    .selectFrom("user_memberships")
    .selectAll()
    .where((eb) => eb.and(ofUser))
    .execute();
  const grants = await db
    .selectFrom("access_grants")
    .selectAll()
    .where((eb) => eb.and(ofUser))
    .execute();
  return { profile: profile ?? null, memberships, grants };
}

/**
 * Erasure and organization-level users delete: removes the memberships at every level and
 * the grants of users U… in organization O.
 */
export async function deleteAccessOfUsersInOrganization(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
): Promise<void> {
  await deleteRowsOfUsers(db, ["user_memberships", "access_grants"], workspaceId, organizationId, userIds);
}

/** Erasure and organization-level users delete: removes the profiles of users U… in organization O. */
export async function deleteProfilesOfUsersInOrganization(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
): Promise<void> {
  await deleteRowsOfUsers(db, ["user_profiles"], workspaceId, organizationId, userIds);
}

/** Deletes the rows of users U… in organization O from each table, a piece of the ids at a time. */
async function deleteRowsOfUsers(
  db: WriteTx,
  tables: readonly ("user_memberships" | "access_grants" | "user_profiles")[],
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
): Promise<void> {
  for (const chunk of inListChunks(userIds)) {
    for (const table of tables) {
      await db
        .deleteFrom(table)
        .where("workspace_id", "=", workspaceId)
        .where("organization_id", "=", organizationId)
        .where("user_id", "in", chunk)
        .execute();
    }
  }
}

/** The stored profiles of some users in organization O, keyed by userId (users add and update merge into them). */
export async function profilesOfUsers(
  db: Db,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  for (const chunk of inListChunks(userIds)) {
    const rows = await db
      .selectFrom("user_profiles")
      .select(["user_id", "profile"])
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("user_id", "in", chunk)
      .execute();
    for (const row of rows) found.set(row.user_id, JSON.parse(row.profile) as Record<string, unknown>);
  }
  return found;
}

/** Erasure without organizationIds: the organizations where user U has a profile or a grant. */
export async function organizationsOfUser(db: Db, workspaceId: string, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom("user_profiles")
    .select("organization_id")
    .where("workspace_id", "=", workspaceId)
    .where("user_id", "=", userId)
    .union(
      db
        .selectFrom("access_grants")
        .select("organization_id")
        .where("workspace_id", "=", workspaceId)
        .where("user_id", "=", userId),
    )
    .execute();
  return [...new Set(rows.map((r) => r.organization_id))].sort();
}

/** Which of the users are members at any of the levels (the access rule). */
export async function usersWithMembershipOn(
  db: Db,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
  levels: readonly LevelRef[],
): Promise<Set<string>> {
  return foundAmong(
    userIds,
    // One membership per user and level: the limit never cuts.
    (users) =>
      membershipsOfUsers(db, workspaceId, organizationId, users, levels, users.length * levels.length),
    (row) => row.user_id,
  );
}

/**
 * Ceiling of notifyAll's fan-out (docs/decisions.md "Users and access", notifyAll ceiling): the organization-level
 * users one notification may add, as many as notifyUsers may name.
 */
export const MAX_NOTIFY_ALL = 1000;

/**
 * Notifications add `notifyAll` (docs/contract.md "Notifications"): the organization-level users as recipients
 * `{userId}`, read in one index range. More than MAX_NOTIFY_ALL is refused (INVALID_ARGUMENT
 * naming data.notifyAll) rather than silently cut.
 */
export async function organizationRecipients(
  db: Db,
  workspaceId: string,
  organizationId: string,
): Promise<{ userId: string }[]> {
  const ids = await organizationUserIds(db, workspaceId, organizationId, MAX_NOTIFY_ALL + 1);
  if (ids.length > MAX_NOTIFY_ALL) {
    const message = `The organization has more than ${MAX_NOTIFY_ALL} organization-level users; send notifyAll: false and name the recipients in notifyUsers.`;
    throw invalidArgument(`data.notifyAll: ${message}`, [{ field: "data.notifyAll", message }]);
  }
  return ids.map((userId) => ({ userId }));
}

/** Memberships of some users on the organization and the given folders and documents, up to `limit` rows. */
export async function membershipsIn(
  db: Db,
  workspaceId: string,
  organizationId: string,
  userIds: readonly string[],
  levels: { readonly folders: readonly string[]; readonly documents: readonly string[] },
  limit: number,
): Promise<UserMembershipRow[]> {
  const out: UserMembershipRow[] = [];
  for (const [level, ids] of levelChunks(organizationId, levels)) {
    if (out.length >= limit) break;
    out.push(
      ...(await db
        .selectFrom("user_memberships")
        .selectAll()
        .where("workspace_id", "=", workspaceId)
        .where("organization_id", "=", organizationId)
        .where("user_id", "in", [...userIds])
        .where("level", "=", level)
        .where("level_id", "in", [...ids])
        .limit(limit - out.length)
        .execute()),
    );
  }
  return out;
}
