import { type Static, Type } from "typebox";
import { Closed, Id, IdFilter, MAX_ITEMS } from "../../http/schemas.js";

export const RESOURCE_TYPES = ["organization", "folder", "document"] as const;
export const ACCESS_ROLES = ["viewer", "editor"] as const;

const ResourceType = Type.Enum([...RESOURCE_TYPES], { description: "organization, folder or document." });

const ResourceFields = {
  type: ResourceType,
  id: Id("The organization's, folder's or document's id."),
  organizationId: Type.Optional(
    Id("Required for a folder or document; for an organization, equal to id if given."),
  ),
};

export const GrantedResource = Closed(
  {
    ...ResourceFields,
    accessRole: Type.Optional(Type.Enum([...ACCESS_ROLES], { description: "viewer (default) or editor." })),
    expiresAt: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "Epoch ms after which the grant no longer counts; in the future.",
      }),
    ),
  },
  "One grant: a role on a resource, optionally until expiresAt.",
);

export const AddPermissions = Closed({
  userId: Id("The user who receives the grants."),
  permissions: Closed({ resources: Type.Array(GrantedResource, { minItems: 1, maxItems: MAX_ITEMS }) }),
});

export const RemovePermissions = Closed({
  userId: Id("The user whose grants are removed."),
  permissions: Closed({
    resources: Type.Array(Closed(ResourceFields, "A resource whose grant to the user is removed."), {
      minItems: 1,
      maxItems: MAX_ITEMS,
    }),
  }),
});

export const GetPermissions = Closed({
  organizationId: Id(),
  userIds: IdFilter("The users whose grants are listed."),
  folderIds: Type.Optional(IdFilter("Only grants on these folders (and the organization).")),
  documentIds: Type.Optional(IdFilter("Only grants on these documents (and the organization).")),
});

const Grant = Type.Object({
  accessRole: Type.String(),
  expiresAt: Type.Optional(Type.Integer()),
});
const GrantsById = Type.Record(Type.String(), Grant);

export const UserGrants = Type.Record(
  Type.String(),
  Type.Object({
    organization: Type.Optional(GrantsById),
    folders: Type.Optional(GrantsById),
    documents: Type.Optional(GrantsById),
  }),
  { description: "Keyed by userId: the live grants, keyed by resource id." },
);

export type AddPermissionsInput = Static<typeof AddPermissions>;
export type RemovePermissionsInput = Static<typeof RemovePermissions>;
export type GetPermissionsInput = Static<typeof GetPermissions>;
