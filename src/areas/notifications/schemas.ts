import { type Static, type TSchema, Type } from "typebox";
import {
  Closed,
  DeletedCount,
  documentedAs,
  documentedWith,
  FreeObject,
  Id,
  IdFilter,
  ItemResults,
  MAX_ITEMS,
  named,
  OneOf,
  PageSize,
  PageToken,
  Text,
} from "../../http/schemas.js";
import { User } from "../../http/user.js";

/** A user as notifications carry them: the open User object of COMPAT §B. */
export const NotificationUser = User;

/** Content fields that add sets and update merges (SPEC §2.5, plus the body template pair). */
const ContentFields = {
  actionUser: Type.Optional(NotificationUser),
  displayHeadlineMessageTemplate: Type.Optional(Text("Headline template with `{{variable}}` placeholders.")),
  displayHeadlineMessageTemplateData: Type.Optional(
    FreeObject("Values for the headline: `actionUser`, `recipientUser` and any custom keys."),
  ),
  displayBodyMessage: Type.Optional(Text("Body message.")),
  displayBodyMessageTemplate: Type.Optional(Text("Body template with `{{variable}}` placeholders.")),
  displayBodyMessageTemplateData: Type.Optional(FreeObject("Values for the body template.")),
  notificationSourceData: Type.Optional(FreeObject("Any object; sent to the client callback on click.")),
};

/** The service refuses a locationId without documentId (scope.ts); the document says so as a rule. */
const LOCATION_NEEDS_DOCUMENT = { dependentRequired: { locationId: ["documentId"] } };

export const AddNotification = documentedWith(
  Closed({
    organizationId: Id(),
    documentId: Type.Optional(Id("Narrows the notification to one document.")),
    locationId: Type.Optional(Id("A location inside the document; needs documentId.")),
    notificationId: Type.Optional(Id("Notification id; generated when absent. An existing id is replaced.")),
    notificationSource: Type.Optional(Id("What produced the notification; default `custom`.")),
    ...ContentFields,
    displayHeadlineMessageTemplate: Text("Headline template with `{{variable}}` placeholders."),
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
  LOCATION_NEEDS_DOCUMENT,
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
    "Fields to merge into one notification (SPEC §2.5).",
  ),
);

const PatchList = Type.Array(NotificationPatch, { minItems: 1, maxItems: MAX_ITEMS });

/**
 * One notification or an array of them (SPEC §4.9). The validator uses if/then/else, so a bad
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

/** locationId and verifyUserPermissions need documentId (checked by the service, with its messages). */
export const UpdateNotifications = documentedWith(
  Closed({
    organizationId: Id(),
    documentId: Type.Optional(Id()),
    locationId: Type.Optional(Id("Needs documentId.")),
    userId: Type.Optional(Id("Only notifications addressed to this user are updated.")),
    verifyUserPermissions: Type.Optional(
      Type.Boolean({
        description: "readByUserIds keeps only users with access to the document; needs documentId.",
      }),
    ),
    notifications: OneOrMany,
  }),
  LOCATION_NEEDS_DOCUMENT,
);

/** The narrowing shared by get and delete: organization, then document, location, user. */
const ScopeFields = {
  organizationId: Id(),
  documentId: Type.Optional(Id()),
  locationId: Type.Optional(Id()),
  userId: Type.Optional(Id("Notifications addressed to this user.")),
};

export const GetNotifications = documentedWith(
  Closed({
    ...ScopeFields,
    notificationIds: Type.Optional(IdFilter("Fetch these notifications.")),
    unreadOnly: Type.Optional(
      Type.Boolean({ description: "Only those the user has not read; needs userId." }),
    ),
    forYou: Type.Optional(
      Type.Boolean({
        description: "The user's For You list: unread, or read with persistReadForUsers; needs userId.",
      }),
    ),
    order: Type.Optional(Type.Enum(["asc", "desc"], { description: "By timestamp; default desc." })),
    pageSize: Type.Optional(PageSize),
    pageToken: Type.Optional(PageToken),
  }),
  LOCATION_NEEDS_DOCUMENT,
);

/**
 * At least one of documentId, userId, notificationIds, and locationId needs documentId: with
 * organizationId, two fields or more (a lone locationId is refused by the dependency).
 */
export const DeleteNotifications = documentedWith(
  Closed({
    ...ScopeFields,
    notificationIds: Type.Optional(Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS })),
  }),
  {
    minProperties: 2,
    dependentRequired: { locationId: ["documentId"] },
    description: "organizationId and at least one of documentId, userId, notificationIds.",
  },
);

export const NotificationRecord = named(
  "Notification",
  Closed(
    {
      id: Type.String(),
      notificationSource: Type.String(),
      ...ContentFields,
      displayHeadlineMessageTemplate: Type.String(),
      notifyUsers: Type.Array(NotificationUser, { description: "Recipients." }),
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
export const NotificationDeleteResult = OneOf(
  [DeletedCount, ItemResults("Keyed by notification id.")],
  "`{deletedCount}`, or per-id results when notificationIds was given.",
);

export type AddNotificationInput = Static<typeof AddNotification>;
export type NotificationPatchInput = Static<typeof NotificationPatch>;
export type UpdateNotificationsInput = Static<typeof UpdateNotifications>;
export type GetNotificationsInput = Static<typeof GetNotifications>;
export type DeleteNotificationsInput = Static<typeof DeleteNotifications>;
export type NotificationUserInput = Static<typeof NotificationUser>;
