import type { Ctx } from "../../context.js";
import { invalidArgument, notFound } from "../../errors.js";
import { checkQuotas } from "../../quotas/check.js";
import { ensureOrganization, lockOrganization, ORGANIZATION_NOT_FOUND } from "../hierarchy/organizations.js";
import {
  type AddGroupUsersInput,
  type AddUserGroupsInput,
  type DeleteGroupUsersInput,
  MAX_GROUPS_PER_ORGANIZATION,
  MAX_MEMBERS_PER_GROUP,
} from "./schemas.js";
import * as store from "./store.js";

export const GROUP_MESSAGES = {
  groupsAdded: "Organization User Groups added successfully.",
  groupAdded: "Organization user group added.",
  usersAdded: "Added organization users to group successfully.",
  userAdded: "User added to organization user group.",
  usersDeleted: "Deleted users from group successfully.",
  userDeleted: "User deleted from organization user group.",
  notMember: "User is not in organization user group.",
  groupMissing: "Organization user group not found.",
} as const;

export interface GroupAddOutcome {
  readonly success: true;
  readonly id: string;
  readonly message: string;
}

export interface MemberOutcome {
  readonly success: boolean;
  readonly organizationUserGroupId: string;
  readonly message: string;
}

/**
 * Adds groups to an organization (docs/compatibility.md "User groups"); an existing groupId is
 * renamed, its members kept. The organization must exist unless `createOrganization`. Under
 * the organization's row lock the groups are counted, so no two requests pass the cap together.
 */
export async function addGroups(
  ctx: Ctx,
  input: AddUserGroupsInput,
): Promise<Record<string, GroupAddOutcome>> {
  const seen = new Map<string, number>();
  input.organizationUserGroups.forEach((group, index) => {
    const first = seen.get(group.groupId);
    if (first !== undefined) {
      const field = `data.organizationUserGroups[${index}].groupId`;
      throw invalidArgument(`${field} repeats data.organizationUserGroups[${first}].groupId.`, [
        { field, message: "Each groupId may appear once per request." },
      ]);
    }
    seen.set(group.groupId, index);
  });
  const key = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const now = ctx.clock.now();
  await ctx.write(async (trx) => {
    if (input.createOrganization === true)
      await ensureOrganization(trx, key.workspaceId, key.organizationId, now);
    if ((await lockOrganization(trx, key.workspaceId, key.organizationId)) === null) {
      throw notFound(ORGANIZATION_NOT_FOUND);
    }
    await store.upsertGroups(
      trx,
      input.organizationUserGroups.map((group) => ({
        workspace_id: key.workspaceId,
        organization_id: key.organizationId,
        group_id: group.groupId,
        group_name: group.groupName ?? "",
        created_at: now,
        last_updated: now,
      })),
    );
    if ((await store.countGroups(trx, key)) > MAX_GROUPS_PER_ORGANIZATION) {
      throw invalidArgument(
        `data.organizationUserGroups would give the organization more than ${MAX_GROUPS_PER_ORGANIZATION} groups.`,
        [
          {
            field: "data.organizationUserGroups",
            message: `At most ${MAX_GROUPS_PER_ORGANIZATION} groups per organization.`,
          },
        ],
      );
    }
    await checkQuotas(trx, ctx);
  }, input.organizationUserGroups.length);
  return Object.fromEntries(
    input.organizationUserGroups.map((group) => [
      group.groupId,
      { success: true, id: group.groupId, message: GROUP_MESSAGES.groupAdded },
    ]),
  );
}

/** Adds users to a group (NOT_FOUND for an unknown group), at most MAX_MEMBERS_PER_GROUP in all. */
export async function addMembers(
  ctx: Ctx,
  input: AddGroupUsersInput,
): Promise<Record<string, MemberOutcome>> {
  const key = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const groupId = input.organizationUserGroupId;
  const userIds = [...new Set(input.userIds)];
  const now = ctx.clock.now();
  await ctx.write(async (trx) => {
    if (!(await store.lockGroup(trx, key, groupId))) throw notFound(GROUP_MESSAGES.groupMissing);
    await store.insertMembers(
      trx,
      userIds.map((userId) => ({
        workspace_id: key.workspaceId,
        organization_id: key.organizationId,
        group_id: groupId,
        user_id: userId,
        created_at: now,
      })),
    );
    if ((await store.countMembers(trx, key, groupId)) > MAX_MEMBERS_PER_GROUP) {
      throw invalidArgument(`data.userIds would give the group more than ${MAX_MEMBERS_PER_GROUP} members.`, [
        { field: "data.userIds", message: `At most ${MAX_MEMBERS_PER_GROUP} members per group.` },
      ]);
    }
    await checkQuotas(trx, ctx);
  }, userIds.length);
  const outcome = { success: true, organizationUserGroupId: groupId, message: GROUP_MESSAGES.userAdded };
  return Object.fromEntries(userIds.map((userId) => [userId, outcome]));
}

/**
 * Removes the users named, or with `deleteAll` every member (one of the two, not both). A named
 * user who was not a member fails alone.
 */
export async function deleteMembers(
  ctx: Ctx,
  input: DeleteGroupUsersInput,
): Promise<Record<string, MemberOutcome>> {
  const all = input.deleteAll === true;
  if (all === (input.userIds !== undefined)) {
    throw invalidArgument("Send exactly one of data.userIds and data.deleteAll: true.", [
      { field: "data.userIds", message: "Required unless deleteAll is true, and not with it." },
    ]);
  }
  const key = { workspaceId: ctx.workspace.id, organizationId: input.organizationId };
  const groupId = input.organizationUserGroupId;
  const named = all ? null : [...new Set(input.userIds ?? [])];
  const removed = await ctx.write(async (trx) => {
    if (!(await store.lockGroup(trx, key, groupId))) throw notFound(GROUP_MESSAGES.groupMissing);
    return store.deleteMembers(trx, key, groupId, named);
  }, named?.length ?? MAX_MEMBERS_PER_GROUP);
  const gone = new Set(removed);
  const of = (success: boolean): MemberOutcome => ({
    success,
    organizationUserGroupId: groupId,
    message: success ? GROUP_MESSAGES.userDeleted : GROUP_MESSAGES.notMember,
  });
  return Object.fromEntries((named ?? removed).map((userId) => [userId, of(gone.has(userId))]));
}
