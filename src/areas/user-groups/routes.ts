import { operation } from "../../http/operation.js";
import {
  AddGroupUsers,
  AddUserGroups,
  DeleteGroupUsers,
  GroupAddResults,
  GroupMemberResults,
} from "./schemas.js";
import { addGroups, addMembers, deleteMembers, GROUP_MESSAGES } from "./service.js";

export const userGroupOperations = [
  operation({
    path: "/v2/organizations/usergroups/add",
    operationId: "organizationUserGroupsAdd",
    tag: "Users",
    summary: "Add user groups",
    description:
      "Adds groups to an organization (at most 1000 per organization); an existing groupId is renamed and " +
      "keeps its members. The organization must exist unless `createOrganization`. A group means its members " +
      "at read time wherever group ids are accepted (users get's `organizationUserGroupIds`, a restricted " +
      "thread's `visibility.organizationUserGroupIds`). Keyed by groupId.",
    data: AddUserGroups,
    result: GroupAddResults,
    example: {
      data: {
        organizationId: "org-1",
        organizationUserGroups: [{ groupId: "engineering", groupName: "Engineering" }],
      },
      message: GROUP_MESSAGES.groupsAdded,
      result: { engineering: { success: true, id: "engineering", message: GROUP_MESSAGES.groupAdded } },
    },
    handle: async (ctx, data) => ({ message: GROUP_MESSAGES.groupsAdded, data: await addGroups(ctx, data) }),
  }),
  operation({
    path: "/v2/organizations/usergroups/users/add",
    operationId: "organizationUserGroupUsersAdd",
    tag: "Users",
    summary: "Add users to a user group",
    description:
      "Adds user ids to a group (at most 1000 members per group); a user already in it stays. An unknown group " +
      "is NOT_FOUND. Keyed by userId.",
    data: AddGroupUsers,
    result: GroupMemberResults,
    example: {
      data: { organizationId: "org-1", organizationUserGroupId: "engineering", userIds: ["u1", "u3"] },
      message: GROUP_MESSAGES.usersAdded,
      result: {
        u1: { success: true, organizationUserGroupId: "engineering", message: GROUP_MESSAGES.userAdded },
        u3: { success: true, organizationUserGroupId: "engineering", message: GROUP_MESSAGES.userAdded },
      },
    },
    handle: async (ctx, data) => ({ message: GROUP_MESSAGES.usersAdded, data: await addMembers(ctx, data) }),
  }),
  operation({
    path: "/v2/organizations/usergroups/users/delete",
    operationId: "organizationUserGroupUsersDelete",
    tag: "Users",
    summary: "Remove users from a user group",
    description:
      "Removes the users of `userIds`, or with `deleteAll: true` every member (send one of the two). A named " +
      "user who is not a member fails alone. An unknown group is NOT_FOUND. Keyed by userId.",
    data: DeleteGroupUsers,
    result: GroupMemberResults,
    example: {
      data: { organizationId: "org-1", organizationUserGroupId: "engineering", userIds: ["u3"] },
      message: GROUP_MESSAGES.usersDeleted,
      result: {
        u3: { success: true, organizationUserGroupId: "engineering", message: GROUP_MESSAGES.userDeleted },
      },
    },
    handle: async (ctx, data) => ({
      message: GROUP_MESSAGES.usersDeleted,
      data: await deleteMembers(ctx, data),
    }),
  }),
];
