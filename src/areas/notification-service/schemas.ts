import { type Static, Type } from "typebox";
import { Closed, named } from "../../http/schemas.js";

/**
 * Comment trigger keys: the original's actionType words (docs/decisions.md "Notification
 * service"), each naming one comment event (src/webhooks/comment-payloads.ts COMMENT_ACTIONS).
 */
export const COMMENT_TRIGGER_KEYS = [
  "newlyAdded",
  "added",
  "updated",
  "deleted",
  "statusChanged",
  "assigned",
  "priorityChanged",
  "reactionAdded",
  "reactionDeleted",
  "suggestionAccepted",
  "suggestionRejected",
] as const;

/** Huddle trigger keys: stored and returned only (collabd has no huddles). */
export const HUDDLE_TRIGGER_KEYS = ["created", "join"] as const;

const flags = (keys: readonly string[], description: string) =>
  Closed(Object.fromEntries(keys.map((key) => [key, Type.Optional(Type.Boolean())])), description);

const Triggers = named(
  "NotificationServiceTriggers",
  Closed(
    {
      comment: Type.Optional(flags(COMMENT_TRIGGER_KEYS, "Comment events that write inbox notifications.")),
      huddle: Type.Optional(flags(HUDDLE_TRIGGER_KEYS, "Stored only: collabd has no huddles.")),
    },
    "Trigger key → on/off, per group.",
  ),
);

const DelaySeconds = Type.Integer({
  minimum: 10,
  maximum: 15_552_000,
  description: "10 s to 6 months.",
});

const Delay = named(
  "NotificationServiceDelay",
  Closed(
    { isEnabled: Type.Optional(Type.Boolean()), delaySeconds: Type.Optional(DelaySeconds) },
    "A notification becomes visible to notifications get only this long after its event.",
  ),
);

const BatchSettings = named(
  "NotificationServiceBatch",
  Closed(
    {
      isEnabled: Type.Optional(Type.Boolean()),
      batchWindowSeconds: Type.Optional(
        Type.Integer({ minimum: 10, maximum: 604_800, description: "10 s to 1 week." }),
      ),
      maxActivities: Type.Optional(
        Type.Integer({ minimum: 2, maximum: 50, description: "The batch is shown once this many pile up." }),
      ),
    },
    "Events inside the window are combined into one notification per recipient.",
  ),
);

export const NotificationServiceConfig = named(
  "NotificationServiceConfig",
  Closed(
    {
      triggers: Type.Optional(Triggers),
      delayConfig: Type.Optional(Delay),
      batchConfig: Type.Optional(
        Closed(
          { document: Type.Optional(BatchSettings), user: Type.Optional(BatchSettings) },
          "Per document (each recipient's events on one document), or per user (all of a recipient's events).",
        ),
      ),
    },
    "The notification service's settings; update merges what is sent into what is stored.",
  ),
);
export type ServiceConfigPatch = Static<typeof NotificationServiceConfig>;

export const GetServiceConfig = Closed({});

export const UpdateServiceConfig = Closed({
  useNotificationService: Type.Optional(
    Type.Boolean({ description: "Comment triggers write inbox notifications by themselves." }),
  ),
  notificationServiceConfig: Type.Optional(NotificationServiceConfig),
});
export type UpdateServiceConfigInput = Static<typeof UpdateServiceConfig>;

const FullBatch = Closed({
  isEnabled: Type.Boolean(),
  batchWindowSeconds: Type.Integer(),
  maxActivities: Type.Integer(),
});

export const ServiceConfigView = named(
  "NotificationServiceConfigView",
  Closed(
    {
      useNotificationService: Type.Boolean(),
      notificationServiceConfig: Closed({
        triggers: Closed({
          comment: flags(COMMENT_TRIGGER_KEYS, "Comment triggers set so far."),
          huddle: flags(HUDDLE_TRIGGER_KEYS, "Huddle triggers set so far."),
        }),
        delayConfig: Closed({ isEnabled: Type.Boolean(), delaySeconds: Type.Integer() }),
        batchConfig: Closed({ document: FullBatch, user: FullBatch }),
      }),
    },
    "The whole stored state, defaults filled in.",
  ),
);
