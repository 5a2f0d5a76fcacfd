import { type Static, Type } from "typebox";
import {
  AddedItem,
  Closed,
  ID_PATTERN,
  Id,
  IdFilter,
  MAX_ITEMS,
  named,
  PageSize,
  PageToken,
} from "../../http/schemas.js";

/** Printable text: names are shown to people, so control characters are refused like in ids. */
export const Name = (description: string) =>
  Type.String({ minLength: 1, maxLength: 1024, pattern: ID_PATTERN, description });

export const NewOrganization = named(
  "NewOrganization",
  Closed(
    {
      organizationId: Id("The organization's id, chosen by the client."),
      organizationName: Type.Optional(Name("Display name.")),
    },
    "One organization to create.",
  ),
);

export const AddOrganizations = Closed({
  organizations: Type.Array(NewOrganization, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const GetOrganizations = Closed({
  organizationIds: Type.Optional(IdFilter("Fetch these organizations.")),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const OrganizationRecord = named(
  "Organization",
  Closed(
    {
      organizationId: Type.String(),
      organizationName: Type.Optional(Type.String()),
      createdAt: Type.Integer({ description: "Epoch ms." }),
      lastUpdated: Type.Integer({ description: "Epoch ms." }),
    },
    "An organization record.",
  ),
);

export const OrganizationItemResults = Type.Record(Type.String(), AddedItem, {
  description: "Keyed by organizationId.",
});

export type AddOrganizationsInput = Static<typeof AddOrganizations>;
export type GetOrganizationsInput = Static<typeof GetOrganizations>;
