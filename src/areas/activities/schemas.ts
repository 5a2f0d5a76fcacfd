import { type Static, Type } from "typebox";
import {
  AnyValue,
  Closed,
  Filter,
  FreeObject,
  Id,
  IdFilter,
  ItemResult,
  MAX_ITEMS,
  PageSize,
  PageToken,
  Text,
} from "../../http/schemas.js";

export const FEATURE_TYPES = ["comment", "reaction", "recorder", "crdt", "custom"] as const;

const FeatureType = Type.Enum([...FEATURE_TYPES], {
  description: "One of comment, reaction, recorder, crdt, custom.",
});

const ActionType = Type.String({
  minLength: 1,
  maxLength: 256,
  description: "Dotted action, e.g. `comment.add`.",
});

export const ActionUser = Closed(
  {
    userId: Id("The acting user's id."),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    name: Type.Optional(Text(undefined, 1024)),
    photoUrl: Type.Optional(Text(undefined, 2048)),
  },
  "The user who performed the action.",
);

const Changes = Type.Record(
  Type.String(),
  Type.Object(
    { from: Type.Optional(Type.Unknown()), to: Type.Optional(Type.Unknown()) },
    { additionalProperties: false },
  ),
  { description: "Field name to `{from, to}`." },
);

/** Fields an add and an update both accept. */
const MutableFields = {
  changes: Type.Optional(Changes),
  entityData: Type.Optional(AnyValue("Snapshot of the entity at action time.")),
  entityTargetData: Type.Optional(AnyValue("Snapshot of the target entity.")),
  displayMessageTemplate: Type.Optional(Text("Template with `{{variable}}` placeholders.")),
  displayMessageTemplateData: Type.Optional(FreeObject("Values for the template variables.")),
  actionIcon: Type.Optional(Text("URL or identifier of the icon.", 2048)),
};

export const NewActivity = Closed({
  id: Type.Optional(Id("Record id; an existing record with this id is replaced.")),
  featureType: FeatureType,
  actionType: ActionType,
  actionUser: ActionUser,
  targetEntityId: Type.Optional(Id("Required when featureType is custom.")),
  targetSubEntityId: Type.Optional(Id()),
  ...MutableFields,
  isActivityResolverUsed: Type.Optional(Type.Boolean()),
});

export const ActivityPatch = Closed({ id: Id("The activity to update."), ...MutableFields });

export const GetActivities = Closed({
  organizationId: Id(),
  documentId: Type.Optional(Id()),
  targetEntityId: Type.Optional(Id()),
  featureTypes: Type.Optional(Filter(FeatureType)),
  actionTypes: Type.Optional(Filter(ActionType)),
  userId: Type.Optional(Id()),
  activityIds: Type.Optional(IdFilter("Fetch these activities.")),
  order: Type.Optional(Type.Enum(["asc", "desc"], { description: "By timestamp; default desc." })),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const AddActivities = Closed({
  organizationId: Id(),
  documentId: Id(),
  activities: Type.Array(NewActivity, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const UpdateActivities = Closed({
  organizationId: Id(),
  activities: Type.Array(ActivityPatch, { minItems: 1, maxItems: MAX_ITEMS }),
});

export const DeleteActivities = Closed({
  organizationId: Id(),
  documentId: Type.Optional(Id()),
  targetEntityId: Type.Optional(Id()),
  activityIds: Type.Optional(Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS })),
});

export const ActivityRecord = Type.Object(
  {
    id: Type.String(),
    featureType: Type.String(),
    actionType: Type.String(),
    actionUser: Type.Object({}, { additionalProperties: true }),
    targetEntityId: Type.Optional(Type.String()),
    displayMessageTemplate: Type.Optional(Type.String()),
    displayMessageTemplateData: Type.Optional(Type.Object({}, { additionalProperties: true })),
    metadata: Type.Object({
      apiKey: Type.String(),
      documentId: Type.String(),
      organizationId: Type.String(),
    }),
    timestamp: Type.Integer(),
  },
  { additionalProperties: true, description: "SPEC §2.1 plus any add-only fields that were set." },
);

export const ItemResults = Type.Record(Type.String(), ItemResult, { description: "Keyed by id." });

export type NewActivityInput = Static<typeof NewActivity>;
export type ActivityPatchInput = Static<typeof ActivityPatch>;
export type GetActivitiesInput = Static<typeof GetActivities>;
export type DeleteActivitiesInput = Static<typeof DeleteActivities>;
