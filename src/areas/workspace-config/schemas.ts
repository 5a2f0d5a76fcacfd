import { type Static, Type } from "typebox";
import { Closed, MAX_TIMESTAMP_MS, named } from "../../http/schemas.js";
import { ACCESS_TYPES } from "../hierarchy/paths.js";
import { COMMENT_TRIGGER_KEYS } from "../notification-service/schemas.js";

/** Requests and answers of activityconfig and apikeyconfig (docs/compatibility.md "Workspace configuration"). */

const commentFlags = (description: string) =>
  Closed(
    Object.fromEntries(COMMENT_TRIGGER_KEYS.map((key) => [key, Type.Optional(Type.Boolean())])),
    description,
  );

const EnabledTime = Type.Integer({
  minimum: 0,
  maximum: MAX_TIMESTAMP_MS,
  description: "Epoch ms logging was turned on; stored and returned as given.",
});

const ActivityTriggers = named(
  "ActivityLogTriggers",
  Closed(
    {
      comment: Type.Optional(
        commentFlags("Comment events that write an activity record by themselves (no triggerActivities)."),
      ),
    },
    "Trigger key → on/off; only the comment group.",
  ),
);

export const ActivityServiceConfigPatch = named(
  "ActivityServiceConfigPatch",
  Closed(
    {
      isEnabled: Type.Optional(
        Type.Boolean({ description: "The workspace's activity service (the CLI's --activity-service)." }),
      ),
      enabledTime: Type.Optional(EnabledTime),
      immutable: Type.Optional(
        Type.Boolean({ description: "Records logged from now on cannot be updated or deleted." }),
      ),
      triggers: Type.Optional(ActivityTriggers),
    },
    "Merged deeply into the stored configuration; at least one field.",
  ),
);
export type ActivityConfigPatch = Static<typeof ActivityServiceConfigPatch>;

export const GetActivityConfig = Closed({});
export const UpdateActivityConfig = Closed({ activityServiceConfig: ActivityServiceConfigPatch });

export const ActivityConfigView = named(
  "ActivityServiceConfigView",
  Closed(
    {
      activityServiceConfig: Closed({
        isEnabled: Type.Boolean(),
        enabledTime: Type.Optional(Type.Integer()),
        immutable: Type.Optional(Type.Boolean()),
        triggers: Type.Optional(Closed({ comment: Type.Optional(commentFlags("Comment triggers set.")) })),
      }),
    },
    "The whole state: isEnabled always, the rest as stored (seeded on the first enable).",
  ),
);

const AccessTypeField = Type.Enum([...ACCESS_TYPES], {
  description: "What top-level folders and folderless documents inherit.",
});

const AiModelKey = Closed(
  {
    provider: Type.Enum(["openai", "anthropic", "gemini"]),
    customerApiKey: Type.String({ maxLength: 4096 }),
  },
  "Refused: collabd runs no AI models.",
);

export const GetApiKeyConfig = Closed({});
export const UpdateApiKeyConfig = Closed({
  enablePrivateComments: Type.Optional(
    Type.Boolean({
      description: "Thread visibility other than public is allowed (read back as isPrivateCommentsEnabled).",
    }),
  ),
  requireJwtToken: Type.Optional(
    Type.Boolean({ description: "Stored and returned only (collabd has no client SDK)." }),
  ),
  requireAutoOrgUser: Type.Optional(
    Type.Boolean({ description: "Stored and returned only (collabd has no client SDK)." }),
  ),
  defaultDocumentAccessType: Type.Optional(AccessTypeField),
  aiModelApiKey: Type.Optional(
    Type.Array(AiModelKey, {
      minItems: 1,
      maxItems: 3,
      description: "Refused with INVALID_ARGUMENT: collabd runs no AI models.",
    }),
  ),
});
export type UpdateApiKeyConfigInput = Static<typeof UpdateApiKeyConfig>;

export const ApiKeyConfigView = named(
  "ApiKeyConfig",
  Closed(
    {
      ownerEmail: Type.Union([Type.String(), Type.Null()], {
        description: "The workspace's contact (CLI `workspace update --owner-email`); null when unset.",
      }),
      planInfo: Closed({ type: Type.String({ description: "Always `self-hosted`." }) }),
      defaultDocumentAccessType: AccessTypeField,
      isPrivateCommentsEnabled: Type.Boolean(),
      requireJwtToken: Type.Boolean(),
      requireAutoOrgUser: Type.Boolean(),
    },
    "The workspace's API key settings.",
  ),
);

export const ApiKeyConfigUpdated = named(
  "ApiKeyConfigUpdated",
  Closed(
    {
      enablePrivateComments: Type.Optional(Type.Boolean()),
      requireJwtToken: Type.Optional(Type.Boolean()),
      requireAutoOrgUser: Type.Optional(Type.Boolean()),
      defaultDocumentAccessType: Type.Optional(AccessTypeField),
    },
    "Only the fields sent, with their values after the write.",
  ),
);
