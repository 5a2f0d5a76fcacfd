import { type Static, Type } from "typebox";
import { Closed, Id, MAX_ITEMS, named, Text } from "../../http/schemas.js";

/** Groups one organization may hold, and members one group may hold (docs/decisions.md "User groups"). */
export const MAX_GROUPS_PER_ORGANIZATION = 1000;
export const MAX_MEMBERS_PER_GROUP = 1000;

export const AddUserGroups = Closed({
  organizationId: Id("The organization the groups belong to."),
  organizationUserGroups: Type.Array(
    Closed(
      {
        groupId: Id("The group's id, unique in the organization."),
        groupName: Type.Optional(Text("The group's name.", 1024)),
      },
      "One group; adding an existing groupId renames it.",
    ),
    { minItems: 1, maxItems: MAX_ITEMS, description: "The groups to add." },
  ),
  createOrganization: Type.Optional(
    Type.Boolean({ description: "Create the organization record first when it is missing." }),
  ),
});
export type AddUserGroupsInput = Static<typeof AddUserGroups>;

const Members = Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS, description: "User ids." });

export const AddGroupUsers = Closed({
  organizationId: Id("The organization."),
  organizationUserGroupId: Id("The group."),
  userIds: Members,
});
export type AddGroupUsersInput = Static<typeof AddGroupUsers>;

export const DeleteGroupUsers = Closed({
  organizationId: Id("The organization."),
  organizationUserGroupId: Id("The group."),
  userIds: Type.Optional(Members),
  deleteAll: Type.Optional(
    Type.Boolean({ description: "Remove every member; send either this (true) or userIds." }),
  ),
});
export type DeleteGroupUsersInput = Static<typeof DeleteGroupUsers>;

export const GroupAddResults = Type.Record(
  Type.String(),
  named(
    "UserGroupAddItem",
    Closed(
      { success: Type.Boolean(), id: Type.String(), message: Type.String() },
      'One group\'s outcome; `id` is the groupId (docs/compatibility.md "D2").',
    ),
  ),
  { description: "Keyed by groupId." },
);

export const GroupMemberResults = Type.Record(
  Type.String(),
  named(
    "UserGroupMemberItem",
    Closed(
      { success: Type.Boolean(), organizationUserGroupId: Type.String(), message: Type.String() },
      "One user's outcome.",
    ),
  ),
  { description: "Keyed by userId." },
);
