import { Type } from "typebox";
import { operatorOperation, type RefusedOperation } from "../../http/operation.js";
import { Closed, ID_PATTERN } from "../../http/schemas.js";
import {
  ApiKeyOnly,
  ApiKeySummary,
  AuthTokens,
  CreateApiKey,
  CreatedApiKey,
  GetApiKeys,
  GetWorkspace,
  MAX_API_KEY_LIST,
  MAX_API_KEY_PAGE,
  MAX_LISTED_TOKENS,
  OperatorWorkspace,
  ResetAuthToken,
  UpdateApiKey,
} from "./schemas.js";
import {
  createApiKey,
  getApiKeys,
  getAuthTokens,
  getWorkspace,
  OPERATOR_MESSAGES as M,
  resetAuthToken,
  updateApiKey,
} from "./service.js";

const TAG = "Operator";
const KEY = "ak_3kTq9ZbV7xNcYw2LmP4rHs8dFg6jB1eA";
const ISSUED = "Auth token issued 2026-01-01T00:00:00.000Z";

/**
 * The operator API (docs/contract.md "Operator API"): the original's workspace-level operations,
 * authenticated by the operator's `x-svc-workspace-id` and `x-svc-workspace-auth-token`
 * (`collabd operator create-token`), never by a workspace's API key.
 */
export const operatorOperations = [
  operatorOperation({
    path: "/v2/workspace/get",
    operationId: "operatorWorkspaceGet",
    tag: TAG,
    summary: "Get the deployment",
    description:
      "The deployment as the original's workspace: the operator's id, its token masked, and `apiKeyList`, the " +
      `first ${MAX_API_KEY_LIST} workspaces by API key (\`apiKeyListComplete\` false when there are more: page ` +
      "them with apikeys/get).",
    data: GetWorkspace,
    result: OperatorWorkspace,
    example: {
      data: {},
      message: M.workspaceGot,
      result: {
        id: "ws_Jk2mP9xQ4rT7vW1yZ3bC5dF8",
        name: "collabd",
        owner: { email: "", id: "ws_Jk2mP9xQ4rT7vW1yZ3bC5dF8", name: "", avatar: "" },
        authToken: "at_…x7Qa",
        apiKeyList: { [KEY]: { id: KEY, apiKeyName: "Owner Test API Key", type: "testing" } },
        apiKeyListComplete: true,
      },
    },
    handle: async (ctx) => ({ message: M.workspaceGot, data: await getWorkspace(ctx) }),
  }),
  operatorOperation({
    path: "/v2/workspace/apikeys/get",
    operationId: "operatorApiKeysGet",
    tag: TAG,
    summary: "List the workspaces as API keys",
    description:
      `The deployment's workspaces in API-key order, at most ${MAX_API_KEY_PAGE} a page; \`apiKeys\` narrows to ` +
      "those keys. The body may be left out.",
    data: GetApiKeys,
    result: Type.Array(ApiKeySummary),
    list: true,
    nextPageToken: true,
    bodyOptional: true,
    example: {
      data: { pageSize: 10 },
      message: M.apiKeysGot,
      result: [{ id: KEY, apiKeyName: "Owner Test API Key", type: "testing" }],
    },
    handle: async (ctx, data) => {
      const page = await getApiKeys(ctx, data);
      return { message: M.apiKeysGot, data: page.data, pageToken: page.pageToken };
    },
  }),
  operatorOperation({
    path: "/v2/workspace/apikey/create",
    operationId: "operatorApiKeyCreate",
    tag: TAG,
    summary: "Create a workspace (an API key)",
    description:
      "Creates a collabd workspace with the activity service and advanced queries on, named `apiKeyName`. " +
      "`type`, the regions and the service settings are stored only. With `createAuthToken` its first token " +
      "is answered once as `authToken`; without, issue one with authtoken/reset. At most " +
      "`COLLABD_OPERATOR_WORKSPACES_MAX` (100) per operator token (RESOURCE_EXHAUSTED beyond).",
    data: CreateApiKey,
    result: CreatedApiKey,
    example: {
      data: { ownerEmail: "owner@example.com", type: "testing", createAuthToken: true },
      message: M.apiKeyCreated,
      result: { apiKey: KEY, authToken: "at_Qm7vX2kP9rT4wY8zB3nC6dF1gH5jK0sLx7Qa" },
    },
    handle: async (ctx, data) => ({ message: M.apiKeyCreated, data: await createApiKey(ctx, data) }),
  }),
  operatorOperation({
    path: "/v2/workspace/apikey/update",
    operationId: "operatorApiKeyUpdate",
    tag: TAG,
    summary: "Rename a workspace",
    description: "Sets the workspace's name (`apiKeyName`). An unknown key is NOT_FOUND `API key not found.`",
    data: UpdateApiKey,
    result: Type.Null(),
    example: {
      data: { apiKey: KEY, apiKeyName: "Production app" },
      message: M.apiKeyUpdated,
      result: null,
    },
    handle: async (ctx, data) => {
      await updateApiKey(ctx, data);
      return { message: M.apiKeyUpdated, data: null };
    },
  }),
  operatorOperation({
    path: "/v2/workspace/authtokens/get",
    operationId: "operatorAuthTokensGet",
    tag: TAG,
    summary: "List a workspace's auth tokens, masked",
    description:
      `The workspace's newest ${MAX_LISTED_TOKENS} tokens as \`at_…abcd\` (collabd stores only their hashes; ` +
      'docs/compatibility.md "D21"). An unknown key is NOT_FOUND `API key not found.`',
    data: ApiKeyOnly,
    result: AuthTokens,
    example: {
      data: { apiKey: KEY },
      message: M.tokensGot,
      result: { apiKey: KEY, authTokens: [{ token: "at_…x7Qa", name: ISSUED, domains: [] }] },
    },
    handle: async (ctx, data) => ({ message: M.tokensGot, data: await getAuthTokens(ctx, data) }),
  }),
  operatorOperation({
    path: "/v2/workspace/authtoken/reset",
    operationId: "operatorAuthTokenReset",
    tag: TAG,
    summary: "Issue a new auth token and revoke the others",
    description:
      "Issues a new token for the workspace (answered in full this once) and revokes every other token of it " +
      "in the same transaction: the next request with an old token is refused, in every process. An unknown " +
      "key is NOT_FOUND `API key not found.`",
    data: ApiKeyOnly,
    result: ResetAuthToken,
    example: {
      data: { apiKey: KEY },
      message: M.tokenReset,
      result: {
        apiKey: KEY,
        newAuthToken: { token: "at_Vb8nM2kQ5rW9xT3yZ7cD1fG4hJ6kL0pNw2Rt", name: ISSUED, domains: [] },
      },
    },
    handle: async (ctx, data) => ({ message: M.tokenReset, data: await resetAuthToken(ctx, data) }),
  }),
];

/** The original's `workspace/create` request, documented for clients; collabd refuses it (D22). */
const CreateWorkspace = Closed({
  ownerEmail: Type.String({ maxLength: 320 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: ID_PATTERN })),
  workspaceName: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: ID_PATTERN })),
  avatar: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const WORKSPACE_CREATE_REFUSAL =
  "Workspace creation over HTTP is disabled; run collabd workspace create.";

/** `workspace/create`: refused to everyone, with or without credentials (docs/compatibility.md "D22"). */
export const workspaceCreateRefusal: RefusedOperation = {
  path: "/v2/workspace/create",
  operationId: "workspaceCreate",
  tag: TAG,
  summary: "Create a workspace: refused",
  description:
    "Always PERMISSION_DENIED, with or without credential headers: a self-hosted deployment has one operator, " +
    "who creates workspaces with `collabd workspace create` or the operator API's apikey/create " +
    '(docs/compatibility.md "D22").',
  data: CreateWorkspace,
  example: { ownerEmail: "owner@example.com", name: "Owner", workspaceName: "Owner workspace" },
  status: "PERMISSION_DENIED",
  message: WORKSPACE_CREATE_REFUSAL,
};
