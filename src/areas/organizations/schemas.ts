import { type Static, Type } from "typebox";
import {
  AddedItem,
  Closed,
  ID_PATTERN,
  Id,
  IdFilter,
  JSON_VALUE_REF,
  MAX_ITEMS,
  named,
  PageSize,
  PageToken,
} from "../../http/schemas.js";
import { OpenItem } from "../hierarchy/metadata.js";

/** Printable text: names are shown to people, so control characters are refused like in ids. */
export const Name = (description: string) =>
  Type.String({ minLength: 1, maxLength: 1024, pattern: ID_PATTERN, description });

/** New operations take at most 30 ids, as the original does (docs/compatibility.md "Policy"). */
export const MAX_NEW_IDS = 30;

export const IdList = (description: string) =>
  Type.Array(Id(), { minItems: 1, maxItems: MAX_NEW_IDS, description });

const ORGANIZATION_FIELDS = {
  organizationId: Id("The organization's id, chosen by the client."),
  organizationName: Type.Optional(Name("Display name.")),
};

/** Keys the organization record sets itself, refused as metadata. */
export const ORGANIZATION_RESERVED = ["id", "disabled", "createdAt", "lastUpdated"] as const;

export const NewOrganization = named(
  "NewOrganization",
  OpenItem(
    ORGANIZATION_FIELDS,
    "One organization to create. Open: other keys are metadata, stored and returned by get " +
      "(except id, disabled, createdAt, lastUpdated).",
  ),
);

export const AddOrganizations = Closed({
  organizations: Type.Array(NewOrganization, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const OrganizationChange = named(
  "OrganizationChange",
  OpenItem(
    ORGANIZATION_FIELDS,
    "One organization's changes: organizationName and metadata keys, merged into the stored ones.",
  ),
);

export const UpdateOrganizations = Closed({
  organizations: Type.Array(OrganizationChange, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const DeleteOrganizations = Closed({
  organizationIds: IdList("Organizations to delete with everything under them."),
});

export const DisableOrganizations = Closed({
  organizationIds: IdList("Organizations to mark; a missing one is created first."),
  disabled: Type.Boolean({ description: "true: nobody has access to anything in them." }),
});

export const GetOrganizations = Closed({
  organizationIds: Type.Optional(IdFilter("Fetch these organizations.")),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

const RECORD_FIELDS = {
  id: Type.String({ description: "= organizationId." }),
  organizationName: Type.Optional(Type.String()),
  disabled: Type.Boolean({ description: "true: the access rule denies every user." }),
  organizationId: Type.String(),
  createdAt: Type.Integer({ description: "Epoch ms." }),
  lastUpdated: Type.Integer({ description: "Epoch ms." }),
};

const RecordShape = Type.Object(RECORD_FIELDS);

export const OrganizationRecord = named(
  "Organization",
  Type.Unsafe<Static<typeof RecordShape>>({
    ...RecordShape,
    additionalProperties: JSON_VALUE_REF,
    description: "An organization record; its metadata keys appear at the top level.",
  }),
);

export const OrganizationItemResults = Type.Record(Type.String(), AddedItem, {
  description: "Keyed by organizationId.",
});

export type AddOrganizationsInput = Static<typeof AddOrganizations>;
export type UpdateOrganizationsInput = Static<typeof UpdateOrganizations>;
export type DeleteOrganizationsInput = Static<typeof DeleteOrganizations>;
export type DisableOrganizationsInput = Static<typeof DisableOrganizations>;
export type GetOrganizationsInput = Static<typeof GetOrganizations>;

export const GetDeleteStatus = Closed({
  organizationId: Id("The deleted organization."),
  documentId: Type.Optional(Id("A deleted document of it; absent: the organization's own delete.")),
  folderId: Type.Optional(
    Id("A deleted folder of it: the sweep of the documents its subtree held (not with documentId)."),
  ),
});
export type GetDeleteStatusInput = Static<typeof GetDeleteStatus>;

export const DeleteStatus = named(
  "DeleteStatus",
  Closed({
    isDeleteCompleted: Type.Boolean({
      description: "Nothing of it is left to sweep; its id can be used again.",
    }),
    tasksLeft: Type.Integer({ description: "Steps of the sweep (one per kind of data) still to run." }),
    batches: Type.Integer({ description: "Bounded transactions the sweep has committed so far." }),
    rowsDeleted: Type.Integer({ description: "Rows the sweep has deleted so far." }),
  }),
);
