import { type Static, Type } from "typebox";
import { Closed, Id, IdFilter, MAX_ITEMS, MAX_TIMESTAMP_MS, named } from "../../http/schemas.js";

export const RESOURCE_TYPES = ["organization", "folder", "document"] as const;
export const ACCESS_ROLES = ["viewer", "editor"] as const;

const ResourceType = named(
  "ResourceType",
  Type.Enum([...RESOURCE_TYPES], { description: "organization, folder or document." }),
);
const AccessRole = named(
  "AccessRole",
  Type.Enum([...ACCESS_ROLES], { description: "viewer (default) or editor." }),
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
        Type.Integer({
          minimum: 0,
          maximum: MAX_TIMESTAMP_MS,
          description: "Epoch ms after which the grant no longer counts; in the future; at most year 9999.",
        }),
      ),
    },
    "One grant: a role on a resource, optionally until expiresAt.",
  ),
);

export const AddPermissions = Closed({
  userId: Id("The user who receives the grants."),
  permissions: Closed({ resources: Type.Array(GrantedResource, { minItems: 1, maxItems: MAX_ITEMS }) }),
});

export const RemovePermissions = Closed({
  userId: Id("The user whose grants are removed."),
  permissions: Closed({
    resources: Type.Array(
      named("GrantRef", Closed(ResourceFields, "A resource whose grant to the user is removed.")),
      {
        minItems: 1,
        maxItems: MAX_ITEMS,
      },
    ),
  }),
});

export const GetPermissions = Closed({
  organizationId: Id(),
  userIds: IdFilter("The users whose grants are listed."),
  folderIds: Type.Optional(IdFilter("Only grants on these folders (and the organization).")),
  documentIds: Type.Optional(IdFilter("Only grants on these documents (and the organization).")),
});

const Grant = named(
  "Grant",
  Closed(
    { accessRole: AccessRole, expiresAt: Type.Optional(Type.Integer({ description: "Epoch ms." })) },
    "A live grant.",
  ),
);
const GrantsById = Type.Record(Type.String(), Grant, { description: "Keyed by resource id." });

export const UserGrants = Type.Record(
  Type.String(),
  named(
    "UserGrants",
    Closed(
      {
        organization: Type.Optional(GrantsById),
        folders: Type.Optional(GrantsById),
        documents: Type.Optional(GrantsById),
      },
      "One user's live grants, by kind of resource.",
    ),
  ),
  { description: "Keyed by userId." },
);

export type AddPermissionsInput = Static<typeof AddPermissions>;
export type RemovePermissionsInput = Static<typeof RemovePermissions>;
export type GetPermissionsInput = Static<typeof GetPermissions>;
