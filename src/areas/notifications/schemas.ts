import { type Static, type TSchema, Type } from "typebox";
import {
  Closed,
  documentedAs,
  documentedWith,
  FreeObject,
  Id,
  IdFilter,
  ItemResults,
  JSON_VALUE_REF,
  MAX_ITEMS,
  named,
  OneOf,
  PageSize,
  PageToken,
  Text,
} from "../../http/schemas.js";
import { User } from "../../http/user.js";

/** A user as notifications carry them: the open User object (docs/contract.md "The User object"). */
export const NotificationUser = User;

/**
 * Headline values: `actionUser` (a user object), `recipientUser` (a user object or a string), any
 * custom keys (open). The users are not required to carry `userId` here: collabd 0.1 accepted any
 * object in this map, and its clients must keep working (docs/decisions.md).
 */
const HEADLINE_DATA_FIELDS = {
  actionUser: Type.Optional(FreeObject("The acting user (User fields).")),
  recipientUser: Type.Optional(
    Type.Union([FreeObject("The recipient (User fields)."), Type.String({ maxLength: 65_536 })]),
  ),
};
const HEADLINE_DATA_DESCRIPTION =
  "Values for the headline: `actionUser` (User), `recipientUser` (User or string) and any custom keys.";
const HeadlineData = documentedAs(
  Type.Unsafe<Record<string, unknown>>(
    Type.Object(HEADLINE_DATA_FIELDS, { additionalProperties: true, description: HEADLINE_DATA_DESCRIPTION }),
  ),
  Type.Unsafe({
    ...Type.Object(HEADLINE_DATA_FIELDS),
    additionalProperties: JSON_VALUE_REF,
    description: HEADLINE_DATA_DESCRIPTION,
  }),
);

/** `context` (docs/contract.md "Notifications"): open; `access` maps a field to a string or a number. */
const CONTEXT_FIELDS = {
  access: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 1024 }), Type.Number()]), {
      description: "Field to a string or number value.",
    }),
  ),
};
const CONTEXT_DESCRIPTION = "Any object, stored and returned; `access` maps fields to strings or numbers.";
export const NotificationContext = documentedAs(
  Type.Unsafe<{ access?: Record<string, string | number>; [key: string]: unknown }>(
    Type.Object(CONTEXT_FIELDS, { additionalProperties: true, description: CONTEXT_DESCRIPTION }),
  ),
  Type.Unsafe({
    ...Type.Object(CONTEXT_FIELDS),
    additionalProperties: JSON_VALUE_REF,
    description: CONTEXT_DESCRIPTION,
  }),
);

/** Map `userId → true` (docs/contract.md "Notifications"; docs/compatibility.md "D7": keyed by plain user ids). */
const UserIdSet = (description: string) => Type.Record(Type.String(), Type.Literal(true), { description });

/** Content fields that add sets and update merges (docs/contract.md "Notifications"), plus the body template pair. */
const ContentFields = {
  actionUser: Type.Optional(NotificationUser),
  displayHeadlineMessageTemplate: Type.Optional(
    Text("Headline template with single-brace placeholders: `{actionUser}`, `{recipientUser}`, `{anyKey}`."),
  ),
  displayHeadlineMessageTemplateData: Type.Optional(HeadlineData),
  displayBodyMessage: Type.Optional(Text("Body message.")),
  displayBodyMessageTemplate: Type.Optional(Text("Body template with `{{variable}}` placeholders.")),
  displayBodyMessageTemplateData: Type.Optional(FreeObject("Values for the body template.")),
  notificationSourceData: Type.Optional(FreeObject("Any object; sent to the client callback on click.")),
};

const flag = (description: string) => Type.Optional(Type.Boolean({ description }));

/**
 * See docs/contract.md "Notifications". `displayHeadlineMessageTemplate` is required unless `isNotificationResolverUsed`
 * is true (the service checks it, naming the field). `notifyAll` belongs to the users area.
 */
export const AddNotification = documentedWith(
  Closed({
    organizationId: Id(),
    documentId: Type.Optional(Id("Narrows the notification to one document.")),
    locationId: Type.Optional(Id("A location (inside the document, when documentId is given).")),
    notificationId: Type.Optional(Id("Notification id; generated when absent. An existing id is replaced.")),
    notificationSource: Type.Optional(
      Id("What produced the notification: `custom` (default), `comment`, `huddle`, `crdt` …"),
    ),
    createOrganization: flag("Create the organization record if missing; default false."),
    createDocument: flag("Create the document record (at the root) if missing; needs documentId."),
    verifyUserPermissions: flag(
      "Keep only recipients with access to the document; needs documentId. Dropped users: `data.details`.",
    ),
    isNotificationResolverUsed: flag("True: the display fields are resolved by the client; not required."),
    context: Type.Optional(NotificationContext),
    ...ContentFields,
    notifyUsers: Type.Optional(
      Type.Array(NotificationUser, { maxItems: MAX_ITEMS, description: "Recipients (For You lists)." }),
    ),
    notifyAll: Type.Optional(
      Type.Boolean({
        description:
          "Default true: the organization-level users (users add) are recipients too, at most 1000; false: only notifyUsers.",
      }),
    ),
  }),
  {
    // Stated in words: the service checks these with its own messages, and `false` needs nothing.
    description:
      "displayHeadlineMessageTemplate is required unless isNotificationResolverUsed is true; " +
      "verifyUserPermissions: true and createDocument: true need documentId.",
  },
);

export const NotificationPatch = named(
  "NotificationPatch",
  Closed(
    {
      id: Id("The notification to update."),
      ...ContentFields,
      readByUserIds: Type.Optional(
        Type.Array(Id(), {
          maxItems: MAX_ITEMS,
          description: "Users for whom the notification is marked read.",
        }),
      ),
      persistReadForUsers: Type.Optional(
        Type.Boolean({ description: "With readByUserIds: true keeps the read notification in For You." }),
      ),
    },
    "Fields to merge into one notification.",
  ),
);

const PatchList = Type.Array(NotificationPatch, { minItems: 1, maxItems: MAX_ITEMS });

/**
 * One notification or an array of them (docs/contract.md "Notifications"). The validator uses if/then/else, so a bad
 * item is reported at its own path (`data.notifications[2].id`), not as "must match a schema";
 * the document says the same as a `oneOf` of the two shapes, which generators read.
 */
const OneOrMany = documentedAs(
  Type.Unsafe<Static<typeof NotificationPatch> | Static<typeof PatchList>>({
    if: { type: "array" },
    // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; this object is never awaited
    then: PatchList,
    else: NotificationPatch,
    description: "A notification update object, or an array of them.",
  } as unknown as TSchema),
  OneOf([NotificationPatch, PatchList], "A notification update object, or an array of them."),
);

/** verifyUserPermissions: true needs documentId (checked by the service, with its message; false needs nothing). */
export const UpdateNotifications = documentedWith(
  Closed({
    organizationId: Id(),
    documentId: Type.Optional(Id()),
    locationId: Type.Optional(Id("Narrows to notifications of this location.")),
    userId: Type.Optional(Id("Only notifications addressed to this user are updated.")),
    verifyUserPermissions: Type.Optional(
      Type.Boolean({
        description: "readByUserIds keeps only users with access to the document; needs documentId.",
      }),
    ),
    notifications: OneOrMany,
  }),
  { description: "verifyUserPermissions: true needs documentId." },
);

/** The narrowing shared by get and delete: organization, then document, location, user. */
const ScopeFields = {
  organizationId: Id(),
  documentId: Type.Optional(Id()),
  locationId: Type.Optional(Id()),
  userId: Type.Optional(Id("Notifications addressed to this user.")),
};

export const GetNotifications = Closed({
  ...ScopeFields,
  notificationIds: Type.Optional(IdFilter("Fetch these notifications.")),
  unreadOnly: Type.Optional(Type.Boolean({ description: "Only those the user has not read; needs userId." })),
  forYou: Type.Optional(
    Type.Boolean({
      description: "The user's For You list: unread, or read with persistReadForUsers; needs userId.",
    }),
  ),
  order: Type.Optional(Type.Enum(["asc", "desc"], { description: "By timestamp; default desc." })),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

/** At least one of documentId, locationId, userId, notificationIds: with organizationId, two fields. */
export const DeleteNotifications = documentedWith(
  Closed({
    ...ScopeFields,
    notificationIds: Type.Optional(Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS })),
  }),
  {
    minProperties: 2,
    description: "organizationId and at least one of documentId, locationId, userId, notificationIds.",
  },
);

export const NotificationRecord = named(
  "Notification",
  Closed(
    {
      id: Type.String(),
      notificationSource: Type.String(),
      ...ContentFields,
      displayHeadlineMessageTemplate: Type.Optional(Type.String()),
      notificationSourceData: FreeObject("Any object; `{}` when unset."),
      context: Type.Optional(NotificationContext),
      isNotificationResolverUsed: Type.Optional(Type.Boolean()),
      notifyUsers: UserIdSet("Recipients: userId → true."),
      notifyUsersByUserId: UserIdSet("Recipients: userId → true."),
      notifyUserObjects: Type.Array(NotificationUser, { description: "Recipients' User objects, as sent." }),
      isUnread: Type.Optional(Type.Boolean({ description: "With data.userId: that user has not read it." })),
      forYou: Type.Optional(
        Type.Boolean({ description: "With data.userId: it is in that user's For You list." }),
      ),
      readByUserIds: Type.Array(Type.String(), { description: "Users who have read it." }),
      metadata: Closed(
        {
          apiKey: Type.String(),
          organizationId: Type.String(),
          documentId: Type.Optional(Type.String()),
          locationId: Type.Optional(Type.String()),
        },
        "Where it lives.",
      ),
      timestamp: Type.Integer({ description: "Epoch ms of the add." }),
      lastUpdated: Type.Integer({ description: "Epoch ms of the last change." }),
    },
    "The stored notification, with the content fields that were set.",
  ),
);

export const NotificationItemResults = ItemResults("Keyed by notification id.");
export const NotificationDeleteResult = ItemResults(
  "Keyed by notification id: every deleted notification, and every notificationIds entry not deleted.",
);

export type AddNotificationInput = Static<typeof AddNotification>;
export type NotificationPatchInput = Static<typeof NotificationPatch>;
export type UpdateNotificationsInput = Static<typeof UpdateNotifications>;
export type GetNotificationsInput = Static<typeof GetNotifications>;
export type DeleteNotificationsInput = Static<typeof DeleteNotifications>;
export type NotificationUserInput = Static<typeof NotificationUser>;
