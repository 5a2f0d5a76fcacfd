import { type Static, Type } from "typebox";
import { Closed, Id, IdFilter, MAX_ITEMS, MAX_TIMESTAMP_MS, named, OneOf } from "../../http/schemas.js";
import { User } from "../../http/user.js";
import { ACCESS_TYPES } from "../hierarchy/paths.js";

export const RESOURCE_TYPES = ["organization", "folder", "document"] as const;
export const ACCESS_ROLES = ["viewer", "editor"] as const;

const ResourceType = named(
  "ResourceType",
  Type.Enum([...RESOURCE_TYPES], { description: "organization, folder or document." }),
);
const AccessRole = named(
  "AccessRole",
  Type.Enum([...ACCESS_ROLES], { description: "viewer or editor (default)." }),
);

const ResourceFields = {
  type: ResourceType,
  id: Id("The organization's, folder's or document's id."),
  organizationId: Type.Optional(
    Id("Required for a folder or document; for an organization, equal to id if given."),
  ),
};

export const GrantedResource = named(
  "GrantedResource",
  Closed(
    {
      ...ResourceFields,
      accessRole: Type.Optional(AccessRole),
      expiresAt: Type.Optional(
        Type.Number({
          minimum: 0,
          maximum: MAX_TIMESTAMP_MS,
          description:
            "Epoch seconds after which the grant no longer counts; in the future. A value of 1e12 or more is " +
            "read as epoch milliseconds (collabd 0.1 clients).",
        }),
      ),
    },
    "One grant: a role on a resource, optionally until expiresAt. The resource need not exist yet.",
  ),
);

/** Exactly one of `user` and `userId`: the service refuses the others, naming the field. */
export const AddPermissions = Closed({
  user: Type.Optional(User),
  userId: Type.Optional(Id("collabd 0.1 form of `user.userId`; send exactly one of user and userId.")),
  permissions: Closed({ resources: Type.Array(GrantedResource, { minItems: 1, maxItems: MAX_ITEMS }) }),
});

export const RemovePermissions = Closed({
  userId: Id("The user whose grants are removed."),
  permissions: Closed({
    resources: Type.Array(
      named(
        "GrantRef",
        Closed(
          ResourceFields,
          "A resource whose grant to the user is removed. A folder without organizationId: that folder id in " +
            "every organization.",
        ),
      ),
      { minItems: 1, maxItems: MAX_ITEMS },
    ),
  }),
});

export const GetPermissions = Closed({
  organizationId: Id(),
  userIds: IdFilter("The users whose access is listed."),
  folderIds: Type.Optional(IdFilter("List exactly these folders (and documents only if documentIds).")),
  documentIds: Type.Optional(IdFilter("List exactly these documents (and folders only if folderIds).")),
});

const AccessTypeSchema = Type.Enum([...ACCESS_TYPES], { description: "The resource's effective access." });

const Access = named(
  "EffectiveAccess",
  Closed(
    {
      accessRole: AccessRole,
      accessType: AccessTypeSchema,
      expiresAt: Type.Optional(
        Type.Integer({ description: "Epoch seconds; present when the deciding grant expires." }),
      ),
    },
    "The user has access, with this role.",
  ),
);

const AccessError = named(
  "AccessError",
  Closed(
    {
      error: Type.String({ description: "What went wrong, e.g. `User does not have access to document`." }),
      errorCode: Type.Enum(["permission_denied", "does_not_exist", "something_went_wrong"]),
      accessType: Type.Optional(AccessTypeSchema),
    },
    "No access, no such resource, or a failure for this one resource.",
  ),
);

const AccessById = Type.Record(Type.String(), OneOf([Access, AccessError], "Access or an error entry."), {
  description: "Keyed by resource id.",
});

export const UserAccess = Type.Record(
  Type.String(),
  named(
    "UserAccess",
    Closed(
      {
        organization: Type.Optional(
          Type.Record(Type.String(), Closed({ accessRole: AccessRole }), {
            description: "Keyed by organizationId; present only with organization-level access.",
          }),
        ),
        folders: Type.Optional(AccessById),
        documents: Type.Optional(AccessById),
      },
      "One user's effective access.",
    ),
  ),
  { description: "Keyed by userId." },
);

export type AddPermissionsInput = Static<typeof AddPermissions>;
export type RemovePermissionsInput = Static<typeof RemovePermissions>;
export type GetPermissionsInput = Static<typeof GetPermissions>;
