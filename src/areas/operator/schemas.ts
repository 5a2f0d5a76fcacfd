import { type Static, Type } from "typebox";
import { Closed, documentedWith, ID_PATTERN, Id, named, PageToken } from "../../http/schemas.js";

/** Bounds of the operator API (docs/contract.md "Operator API"): every list and field is capped. */
export const MAX_API_KEY_PAGE = 100;
/** Workspaces `workspace/get` lists in `apiKeyList` (the rest: apikeys/get, paged). */
export const MAX_API_KEY_LIST = 100;
/** Tokens `authtokens/get` lists: the newest. */
export const MAX_LISTED_TOKENS = 100;
const MAX_DOMAINS = 100;
const MAX_SETTING = 2048;

const ApiKey = Id("A workspace's API key (`x-svc-api-key`).");
const ApiKeyName = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: ID_PATTERN,
  description: "Display name.",
});
const Region = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: "^[A-Za-z0-9_-]+$",
  description: "Stored and returned to no one: collabd has no regions. Production keys only.",
});
const Setting = (description?: string) =>
  Type.String({ maxLength: MAX_SETTING, ...(description ? { description } : {}) });

export const ApiKeySummary = named(
  "ApiKeySummary",
  Closed(
    {
      id: Type.String({ description: "The API key." }),
      apiKeyName: Type.String({ description: "The workspace's name." }),
      type: Type.Union([Type.Literal("testing"), Type.Literal("production")], {
        description: "Stored only; `production` for workspaces not made by apikey/create.",
      }),
    },
    "A collabd workspace, as the original's API key.",
  ),
);

export const AuthTokenEntry = named(
  "AuthTokenEntry",
  Closed(
    {
      token: Type.String({ description: "Masked `at_…abcd` in lists; in full only when issued." }),
      name: Type.String(),
      domains: Type.Array(Type.String(), {
        description: "The allowedDomains apikey/create stored (stored only).",
      }),
    },
    "One auth token of a workspace.",
  ),
);

export const GetWorkspace = Closed({});

export const OperatorWorkspace = named(
  "OperatorWorkspace",
  Closed(
    {
      id: Type.String({ description: "The operator's `x-svc-workspace-id`." }),
      name: Type.String(),
      owner: Closed({ email: Type.String(), id: Type.String(), name: Type.String(), avatar: Type.String() }),
      authToken: Type.String({ description: "The operator's token, masked (`at_…abcd`)." }),
      apiKeyList: Type.Record(Type.String(), ApiKeySummary, {
        description: `The deployment's workspaces by API key, the first ${MAX_API_KEY_LIST} in key order.`,
      }),
      apiKeyListComplete: Type.Boolean({
        description:
          "Extra: false when the deployment has more workspaces than apiKeyList holds (page with apikeys/get).",
      }),
    },
    "The deployment, as the original's workspace.",
  ),
);

export const GetApiKeys = Closed({
  apiKeys: Type.Optional(
    Type.Array(ApiKey, { minItems: 1, maxItems: MAX_API_KEY_PAGE, description: "Only these API keys." }),
  ),
  pageSize: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: `Items per page; default ${MAX_API_KEY_PAGE}; larger values are treated as ${MAX_API_KEY_PAGE}.`,
    }),
  ),
  pageToken: Type.Optional(PageToken),
});
export type GetApiKeysInput = Static<typeof GetApiKeys>;

const EmailServiceConfig = Closed(
  {
    type: Type.Optional(Type.Union([Type.Literal("default"), Type.Literal("sendgrid")])),
    apiKey: Type.Optional(Setting("Not stored: collabd sends no e-mail.")),
    fromEmail: Type.Optional(Setting()),
    fromCompany: Type.Optional(Setting()),
    commentTemplateId: Type.Optional(Setting()),
    tagTemplateId: Type.Optional(Setting()),
  },
  "Stored only (the key itself is not): collabd sends no e-mail.",
);

const WebhookServiceConfig = Closed(
  {
    authToken: Type.Optional(Setting("Not stored.")),
    rawNotificationUrl: Type.Optional(Setting()),
    processedNotificationUrl: Type.Optional(Setting()),
  },
  "Stored only: configure the new workspace's webhooks with /v2/workspace/webhookconfig/update.",
);

const createFields = {
  ownerEmail: Type.Optional(
    Type.String({
      maxLength: 320,
      description: "The workspace's contact (apikeyconfig get's `ownerEmail`); a valid e-mail address.",
    }),
  ),
  type: Type.Union([Type.Literal("testing"), Type.Literal("production")], { description: "Stored only." }),
  persistenceDBRegion: Type.Optional(Region),
  realtimeDBRegion: Type.Optional(Region),
  createAuthToken: Type.Optional(
    Type.Boolean({
      description: "Also issue the workspace's first auth token (answered once, as `authToken`).",
    }),
  ),
  apiKeyName: Type.Optional(ApiKeyName),
  allowedDomains: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: ID_PATTERN }), {
      maxItems: MAX_DOMAINS,
      description: "Stored only; authtokens/get shows them as each token's `domains`.",
    }),
  ),
  addLocalHostToAllowedDomains: Type.Optional(Type.Boolean({ description: "Stored only." })),
  useEmailService: Type.Optional(Type.Boolean({ description: "Stored only." })),
  useWebhookService: Type.Optional(Type.Boolean({ description: "Stored only." })),
  useNotificationService: Type.Optional(Type.Boolean({ description: "Stored only." })),
  setDefaultNotificationTriggers: Type.Optional(Type.Boolean({ description: "Stored only." })),
  setDefaultEmailTriggers: Type.Optional(Type.Boolean({ description: "Stored only." })),
  requireAutoOrgUser: Type.Optional(
    Type.Boolean({ description: "Set in the workspace's API key configuration (stored only there)." }),
  ),
  enablePrivateComments: Type.Optional(
    Type.Boolean({ description: "Set in the workspace's API key configuration (apikeyconfig get)." }),
  ),
  emailServiceConfig: Type.Optional(EmailServiceConfig),
  webhookServiceConfig: Type.Optional(WebhookServiceConfig),
};

/** `ownerEmail` is checked by the service, to answer the original's `ownerEmail is required.` */
export const CreateApiKey = documentedWith(Closed(createFields), { required: ["ownerEmail", "type"] });
export type CreateApiKeyInput = Static<typeof CreateApiKey>;

export const CreatedApiKey = named(
  "CreatedApiKey",
  Closed({
    apiKey: Type.String({ description: "The new workspace's API key." }),
    authToken: Type.Optional(
      Type.String({ description: "Extra, with createAuthToken: the first auth token, shown this once." }),
    ),
  }),
);

export const UpdateApiKey = Closed({ apiKey: ApiKey, apiKeyName: ApiKeyName });

export const ApiKeyOnly = Closed({ apiKey: ApiKey });

export const AuthTokens = named(
  "AuthTokens",
  Closed({
    apiKey: Type.String(),
    authTokens: Type.Array(AuthTokenEntry, {
      description: `The workspace's newest ${MAX_LISTED_TOKENS} tokens, masked.`,
    }),
  }),
);

export const ResetAuthToken = named(
  "ResetAuthToken",
  Closed({ apiKey: Type.String(), newAuthToken: AuthTokenEntry }),
);
