import { type Static, type TSchema, Type } from "typebox";
import {
  Closed,
  FreeObject,
  Id,
  IdFilter,
  MAX_ITEMS,
  PageSize,
  PageToken,
  Text,
} from "../../http/schemas.js";

/** A user as notifications carry them: the acting user and each recipient. */
export const NotificationUser = Closed(
  {
    userId: Id("The user's id."),
    email: Type.Optional(Type.String({ maxLength: 320 })),
    name: Type.Optional(Text(undefined, 1024)),
    photoUrl: Type.Optional(Text(undefined, 2048)),
  },
  "A user: `userId` plus optional display fields.",
);

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

export const AddNotification = Closed({
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
});

export const NotificationPatch = Closed(
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
);

const PatchList = Type.Array(NotificationPatch, { minItems: 1, maxItems: MAX_ITEMS });

/**
 * One notification or an array of them (SPEC §4.9). if/then/else instead of anyOf, so a
 * bad item is reported at its own path (`data.notifications[2].id`), not as "must match a schema".
 */
const OneOrMany = Type.Unsafe<Static<typeof NotificationPatch> | Static<typeof PatchList>>({
  if: { type: "array" },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword; this object is never awaited
  then: PatchList,
  else: NotificationPatch,
  description: "A notification update object, or an array of them.",
} as unknown as TSchema);

export const UpdateNotifications = Closed({
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
});

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

export const DeleteNotifications = Closed({
  ...ScopeFields,
  notificationIds: Type.Optional(Type.Array(Id(), { minItems: 1, maxItems: MAX_ITEMS })),
});

export const NotificationRecord = Type.Object(
  {
    id: Type.String(),
    notificationSource: Type.String(),
    displayHeadlineMessageTemplate: Type.String(),
    notifyUsers: Type.Array(Type.Object({ userId: Type.String() }, { additionalProperties: true })),
    readByUserIds: Type.Array(Type.String()),
    metadata: Type.Object(
      {
        apiKey: Type.String(),
        organizationId: Type.String(),
        documentId: Type.Optional(Type.String()),
        locationId: Type.Optional(Type.String()),
      },
      { additionalProperties: false },
    ),
    timestamp: Type.Integer(),
    lastUpdated: Type.Integer(),
  },
  {
    additionalProperties: true,
    description: "The stored notification, plus the content fields that were set.",
  },
);

export type AddNotificationInput = Static<typeof AddNotification>;
export type NotificationPatchInput = Static<typeof NotificationPatch>;
export type UpdateNotificationsInput = Static<typeof UpdateNotifications>;
export type GetNotificationsInput = Static<typeof GetNotifications>;
export type DeleteNotificationsInput = Static<typeof DeleteNotifications>;
export type NotificationUserInput = Static<typeof NotificationUser>;
