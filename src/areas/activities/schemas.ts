import { type Static, Type } from "typebox";
import {
  AnyValue,
  Closed,
  documentedAs,
  documentedWith,
  Filter,
  FreeObject,
  Id,
  IdFilter,
  MAX_ITEMS,
  named,
  OneOf,
  PageSize,
  PageToken,
  RecordMetadata,
  Text,
} from "../../http/schemas.js";
import { User } from "../../http/user.js";

export const FEATURE_TYPES = ["comment", "reaction", "recorder", "crdt", "custom"] as const;

const FeatureType = named(
  "FeatureType",
  Type.Enum([...FEATURE_TYPES], { description: "One of comment, reaction, recorder, crdt, custom." }),
);

const ActionType = Type.String({
  minLength: 1,
  maxLength: 256,
  description: "Dotted action, e.g. `comment.add`.",
});

/** The acting user: the open User object (docs/contract.md "The User object"). */
export const ActionUser = User;

const Changes = Type.Record(
  Type.String(),
  named(
    "Change",
    Type.Object(
      { from: Type.Optional(AnyValue("The value before.")), to: Type.Optional(AnyValue("The value after.")) },
      { additionalProperties: false, description: "One field's change." },
    ),
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

const NewActivityFields = {
  id: Type.Optional(Id("Record id; an existing record with this id is replaced.")),
  featureType: FeatureType,
  actionType: ActionType,
  actionUser: ActionUser,
  targetEntityId: Type.Optional(Id("Required when featureType is custom.")),
  targetSubEntityId: Type.Optional(Id()),
  ...MutableFields,
  isActivityResolverUsed: Type.Optional(Type.Boolean()),
  immutable: Type.Optional(
    Type.Boolean({
      description:
        "true: update and delete leave the record as it is, whatever the workspace's configuration.",
    }),
  ),
};

/**
 * One activity to add. The service (not the schema) requires `targetEntityId` for `custom`, to
 * answer its own message; the document states the rule as two shapes a generator can read.
 */
export const NewActivity = named(
  "NewActivity",
  documentedAs(
    Closed(NewActivityFields),
    OneOf(
      [
        Closed(
          { ...NewActivityFields, featureType: Type.Enum(["comment", "reaction", "recorder", "crdt"]) },
          "An activity of a built-in feature.",
        ),
        Closed(
          {
            ...NewActivityFields,
            featureType: Type.Literal("custom"),
            targetEntityId: Id("The entity the custom activity is about."),
          },
          "A custom activity: targetEntityId is required.",
        ),
      ],
      "One activity to add.",
    ),
  ),
);

export const ActivityPatch = named(
  "ActivityPatch",
  Closed({ id: Id("The activity to update."), ...MutableFields }, "Fields to merge into one activity."),
);

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

/** At least one of documentId, targetEntityId, activityIds: with organizationId, two fields. */
export const DeleteActivities = documentedWith(
  Closed({
    organizationId: Id(),
    documentId: Type.Optional(Id()),
    targetEntityId: Type.Optional(Id()),
    activityIds: Type.Optional(Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS })),
  }),
  {
    minProperties: 2,
    description: "organizationId and at least one of documentId, targetEntityId, activityIds.",
  },
);

export const ActivityRecord = named(
  "Activity",
  Closed(
    {
      id: Type.String(),
      featureType: FeatureType,
      actionType: Type.String(),
      actionUser: ActionUser,
      targetEntityId: Type.Optional(Type.String()),
      targetSubEntityId: Type.Optional(Type.String()),
      ...MutableFields,
      isActivityResolverUsed: Type.Optional(Type.Boolean()),
      immutable: Type.Optional(Type.Boolean()),
      metadata: RecordMetadata,
      timestamp: Type.Integer({ description: "Epoch ms of the add." }),
    },
    "An activity record, plus the add-only fields that were set.",
  ),
);

const ActivityItemResult = named(
  "ActivityItemResult",
  Closed(
    {
      success: Type.Boolean(),
      message: Type.String(),
      code: Type.Optional(
        Type.Literal("immutable", { description: "The record is immutable: left as it is." }),
      ),
    },
    "One activity's outcome.",
  ),
);

export const ActivityItemResults = Type.Record(Type.String(), ActivityItemResult, {
  description: "Keyed by activity id.",
});
export const ActivityDeleteResult = Type.Record(Type.String(), ActivityItemResult, {
  description:
    "Keyed by activity id: every deleted record, every immutable record matched, and every activityIds entry not deleted.",
});

export type NewActivityInput = Static<typeof NewActivity>;
export type ActivityPatchInput = Static<typeof ActivityPatch>;
export type GetActivitiesInput = Static<typeof GetActivities>;
export type DeleteActivitiesInput = Static<typeof DeleteActivities>;
