import { type Static, Type } from "typebox";
import {
  AddedItem,
  Closed,
  Id,
  ItemResult,
  MAX_ITEMS,
  OneOf,
  PageSize,
  PageToken,
} from "../../http/schemas.js";
import { User } from "../../http/user.js";

/** Id lists of new operations hold at most 30 ids, as the original's (docs/compatibility.md "Policy"). */
export const MAX_LISTED_IDS = 30;

const ShortIdList = (description: string) =>
  Type.Array(Id(), { minItems: 1, maxItems: MAX_LISTED_IDS, description });

/** The level a request acts on: a document, a folder, or (neither) the organization. */
const LevelFields = {
  organizationId: Id("The organization."),
  documentId: Type.Optional(Id("Document level; at most one of documentId and folderId.")),
  folderId: Type.Optional(Id("Folder level; at most one of documentId and folderId.")),
};

const Users = Type.Array(User, {
  minItems: 1,
  maxItems: MAX_ITEMS,
  description: "Users; `accessRole` (default `editor`) is the role at the level.",
});

export const AddUsers = Closed({
  ...LevelFields,
  createOrganization: Type.Optional(
    Type.Boolean({ description: "Accepted; the organization record is created when missing anyway." }),
  ),
  createDocument: Type.Optional(
    Type.Boolean({ description: "Create the document record (at the root) if missing." }),
  ),
  createFolder: Type.Optional(
    Type.Boolean({ description: "Create the folder record (at the top level) if missing." }),
  ),
  users: Users,
});

export const UpdateUsers = Closed({ ...LevelFields, users: Users });

export const GetUsers = Closed({
  ...LevelFields,
  userIds: Type.Optional(ShortIdList("Only these users.")),
  organizationUserGroupIds: Type.Optional(
    ShortIdList("Members of these user groups (at read time); with userIds, users matching either."),
  ),
  allDocuments: Type.Optional(
    Type.Boolean({
      description: "Every document-level user of the organization (not organization users).",
    }),
  ),
  groupByDocumentId: Type.Optional(
    Type.Boolean({ description: "With allDocuments or documentId: `data` is `{documentId: User[]}`." }),
  ),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const DeleteUsers = Closed({
  ...LevelFields,
  userIds: Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS, description: "The users to remove." }),
});

const Members = Type.Array(User, {
  description: "Profiles with `accessRole` at the level (and `documentId` with allDocuments).",
});

export const UserList = OneOf(
  [
    Members,
    Type.Record(Type.String(), Members, { description: "Grouped by documentId (groupByDocumentId)." }),
  ],
  "The users, or with groupByDocumentId the users of each document.",
);

export const UserItemResults = Type.Record(Type.String(), AddedItem, { description: "Keyed by userId." });

export const UserDeleteResults = Type.Record(Type.String(), ItemResult, { description: "Keyed by userId." });

export type AddUsersInput = Static<typeof AddUsers>;
export type UpdateUsersInput = Static<typeof UpdateUsers>;
export type GetUsersInput = Static<typeof GetUsers>;
export type DeleteUsersInput = Static<typeof DeleteUsers>;
