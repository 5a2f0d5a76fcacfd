import { operation } from "../../http/operation.js";
import {
  ActivityConfigView,
  ApiKeyConfigUpdated,
  ApiKeyConfigView,
  GetActivityConfig,
  GetApiKeyConfig,
  UpdateActivityConfig,
  UpdateApiKeyConfig,
} from "./schemas.js";
import {
  ACTIVITY_MESSAGES,
  APIKEY_MESSAGES,
  activityConfig,
  apiKeyConfig,
  updateActivityConfig,
  updateApiKeyConfig,
} from "./service.js";

const TAG = "Workspace";

const ALL_COMMENT_TRIGGERS = {
  newlyAdded: true,
  added: true,
  updated: true,
  deleted: true,
  statusChanged: true,
  assigned: true,
  priorityChanged: true,
  reactionAdded: true,
  reactionDeleted: true,
  suggestionAccepted: true,
  suggestionRejected: true,
};

export const workspaceConfigOperations = [
  operation({
    path: "/v2/workspace/activityconfig/get",
    operationId: "activityConfigGet",
    tag: TAG,
    summary: "Get the activity log configuration",
    description:
      "`isEnabled` is the workspace's activity service (also set by the CLI's `--activity-service`); " +
      "`immutable`, `enabledTime` and `triggers` as stored. The body may be left out.",
    data: GetActivityConfig,
    bodyOptional: true,
    result: ActivityConfigView,
    example: {
      data: {},
      message: ACTIVITY_MESSAGES.retrieved,
      result: { activityServiceConfig: { isEnabled: true } },
    },
    handle: async (ctx) => ({ message: ACTIVITY_MESSAGES.retrieved, data: await activityConfig(ctx) }),
  }),
  operation({
    path: "/v2/workspace/activityconfig/update",
    operationId: "activityConfigUpdate",
    tag: TAG,
    summary: "Update the activity log configuration",
    description:
      "Merges `activityServiceConfig` into the stored configuration (fields left out keep their value). " +
      "`isEnabled: true` with nothing stored yet first seeds the defaults: every comment trigger on " +
      "(suggestion decisions included), `immutable: true`, `enabledTime` now; the request's values go on top. " +
      "With `immutable`, activities update and delete answer `code: immutable` for the records logged meanwhile; " +
      "each enabled comment trigger writes an activity record by itself. Answers the whole state, as get.",
    data: UpdateActivityConfig,
    result: ActivityConfigView,
    example: {
      data: {
        activityServiceConfig: {
          isEnabled: true,
          enabledTime: 1767225600000,
          triggers: { comment: { reactionAdded: false } },
        },
      },
      message: ACTIVITY_MESSAGES.updated,
      result: {
        activityServiceConfig: {
          isEnabled: true,
          immutable: true,
          enabledTime: 1767225600000,
          triggers: { comment: { ...ALL_COMMENT_TRIGGERS, reactionAdded: false } },
        },
      },
    },
    handle: async (ctx, data) => ({
      message: ACTIVITY_MESSAGES.updated,
      data: await updateActivityConfig(ctx, data.activityServiceConfig),
    }),
  }),
  operation({
    path: "/v2/workspace/apikeyconfig/get",
    operationId: "apiKeyConfigGet",
    tag: TAG,
    summary: "Get the API key configuration",
    description:
      "The workspace's settings: `defaultDocumentAccessType` (also the CLI's), private comments (on unless " +
      "turned off), `requireJwtToken` and `requireAutoOrgUser` (stored only), `ownerEmail` (the CLI's " +
      "`--owner-email`). No `aiModelsConfig`: collabd runs no AI models. The body may be left out.",
    data: GetApiKeyConfig,
    bodyOptional: true,
    result: ApiKeyConfigView,
    example: {
      data: {},
      message: APIKEY_MESSAGES.retrieved,
      result: {
        ownerEmail: null,
        planInfo: { type: "self-hosted" },
        defaultDocumentAccessType: "public",
        isPrivateCommentsEnabled: true,
        requireJwtToken: false,
        requireAutoOrgUser: false,
      },
    },
    handle: async (ctx) => ({ message: APIKEY_MESSAGES.retrieved, data: await apiKeyConfig(ctx) }),
  }),
  operation({
    path: "/v2/workspace/apikeyconfig/update",
    operationId: "apiKeyConfigUpdate",
    tag: TAG,
    summary: "Update the API key configuration",
    description:
      "Sets the fields sent (at least one; nothing is removed) and answers them with their values after the " +
      "write. `enablePrivateComments: false` refuses thread visibility other than public; a new " +
      "`defaultDocumentAccessType` reaches the top-level folders that inherit it through a background job. " +
      "`aiModelApiKey` is refused: collabd runs no AI models.",
    data: UpdateApiKeyConfig,
    result: ApiKeyConfigUpdated,
    example: {
      data: { enablePrivateComments: false, requireJwtToken: true },
      message: APIKEY_MESSAGES.updated,
      result: { enablePrivateComments: false, requireJwtToken: true },
    },
    handle: async (ctx, data) => ({
      message: APIKEY_MESSAGES.updated,
      data: await updateApiKeyConfig(ctx, data),
    }),
  }),
];
