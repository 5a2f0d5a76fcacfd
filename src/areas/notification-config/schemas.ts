import { type Static, Type } from "typebox";
import { Closed, Id, named } from "../../http/schemas.js";

/** Who a channel notifies the user about (docs/contract.md "Notification preferences"). */
export const ChannelValue = Type.Union([Type.Literal("ALL"), Type.Literal("MINE"), Type.Literal("NONE")], {
  description: "`ALL`: every notification; `MINE`: only those naming the user as a recipient; `NONE`: none.",
});

export const NotificationConfig = named(
  "NotificationConfig",
  Closed(
    {
      inbox: Type.Optional(ChannelValue),
      email: Type.Optional(ChannelValue),
      slack: Type.Optional(ChannelValue),
    },
    "Channels and their values; a key left out is not set at this level.",
  ),
);
export type NotificationConfigValue = Static<typeof NotificationConfig>;

/** New operations take at most 30 ids per list (docs/compatibility.md "Policy"). */
const Ids = (description: string) => Type.Array(Id(), { minItems: 1, maxItems: 30, description });

export const SetNotificationConfig = Closed({
  organizationId: Id(),
  userIds: Ids("Users whose config is set."),
  config: NotificationConfig,
  documentIds: Type.Optional(
    Ids("Documents the config is for; absent: the users' organization-wide default."),
  ),
});
export type SetNotificationConfigInput = Static<typeof SetNotificationConfig>;

export const GetNotificationConfig = Closed({
  organizationId: Id(),
  userId: Id(),
  documentIds: Type.Optional(Ids("Documents to read the config of; required unless getOrganizationConfig.")),
  getOrganizationConfig: Type.Optional(Type.Boolean({ description: "Read the organization-wide default." })),
});
export type GetNotificationConfigInput = Static<typeof GetNotificationConfig>;

export const ConfigSetResults = Type.Record(
  Type.String(),
  named(
    "NotificationConfigSetItem",
    Closed({
      success: Type.Boolean(),
      userId: Type.String(),
      documentId: Type.Optional(Type.String()),
      documentIds: Type.Optional(Type.Array(Type.String(), { description: "Every document set (extra)." })),
      message: Type.String(),
    }),
  ),
  { description: "Keyed by userId." },
);

export const ConfigEntries = Type.Array(
  named(
    "NotificationConfigEntry",
    Closed({
      config: NotificationConfig,
      metadata: Closed({
        organizationId: Type.String(),
        apiKey: Type.String(),
        documentId: Type.Optional(Type.String()),
        userId: Type.String(),
      }),
    }),
  ),
);
