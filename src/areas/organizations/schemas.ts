import { type Static, Type } from "typebox";
import { Closed, ID_PATTERN, Id, IdFilter, MAX_ITEMS, PageSize, PageToken } from "../../http/schemas.js";

/** Printable text: names are shown to people, so control characters are refused like in ids. */
export const Name = (description: string) =>
  Type.String({ minLength: 1, maxLength: 1024, pattern: ID_PATTERN, description });

export const NewOrganization = Closed({
  organizationId: Id("The organization's id, chosen by the client."),
  organizationName: Type.Optional(Name("Display name.")),
});

export const AddOrganizations = Closed({
  organizations: Type.Array(NewOrganization, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const GetOrganizations = Closed({
  organizationIds: Type.Optional(IdFilter("Fetch these organizations.")),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const OrganizationRecord = Type.Object({
  organizationId: Type.String(),
  organizationName: Type.Optional(Type.String()),
  createdAt: Type.Integer(),
  lastUpdated: Type.Integer(),
});

export const OrganizationItemResults = Type.Record(
  Type.String(),
  Type.Object({ success: Type.Boolean(), id: Type.String(), message: Type.String() }),
  { description: "Keyed by organizationId." },
);

export type AddOrganizationsInput = Static<typeof AddOrganizations>;
export type GetOrganizationsInput = Static<typeof GetOrganizations>;
