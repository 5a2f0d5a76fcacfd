import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { OperatorCtx, Workspace } from "../../context.js";
import type { ApiKeyProfileRow, Tables } from "../../db/tables.js";
import { exclusiveTransaction } from "../../db/transactions.js";
import { ApiError, invalidArgument, notFound } from "../../errors.js";
import type { Clock } from "../../lib/clock.js";
import { newAuthToken } from "../../lib/ids.js";
import { sha256Hex } from "../../lib/keys.js";
import { mergeApiKeySettings } from "../workspace-config/service.js";
import { noteAuthWrite } from "../workspaces/auth-cache.js";
import {
  insertNewWorkspace,
  maskToken,
  matchesAny,
  newWorkspace,
  storeToken,
  tokenHint,
} from "../workspaces/service.js";
import * as workspaces from "../workspaces/store.js";
import {
  type CreateApiKeyInput,
  type GetApiKeysInput,
  MAX_API_KEY_LIST,
  MAX_API_KEY_PAGE,
  MAX_LISTED_TOKENS,
} from "./schemas.js";
import * as store from "./store.js";

type Db = Kysely<Tables>;

export const OPERATOR_MESSAGES = {
  workspaceGot: "Workspace retrieved successfully",
  apiKeysGot: "API keys retrieved successfully.",
  apiKeyCreated: "API key created successfully.",
  apiKeyUpdated: "API key updated successfully.",
  tokensGot: "Auth tokens retrieved successfully.",
  tokenReset: "Auth token reset successfully.",
  apiKeyNotFound: "API key not found.",
  ownerEmailRequired: "ownerEmail is required.",
  badOwnerEmail: "ownerEmail must be a valid e-mail address.",
  missingId: "Workspace ID not found in headers.",
  missingToken: "Auth Token not found in headers.",
  unknownWorkspace: "Workspace not found.",
  wrongToken: "Invalid auth token for workspace.",
} as const;

/** What `collabd operator create-token` prints once. */
export interface OperatorCredentials {
  readonly workspaceId: string;
  readonly workspaceAuthToken: string;
}

/** The advisory lock key (PostgreSQL) under which the operator credential is made or rotated. */
const OPERATOR_CREDENTIAL_LOCK = 0x6f_70_72; // "opr"

/**
 * Makes the deployment's operator credential, or gives the existing one a new token (the old
 * token stops working at once: nothing caches operator tokens). The token is stored as its hash.
 */
export async function createOperatorToken(db: Db, clock: Clock): Promise<OperatorCredentials> {
  const token = newAuthToken();
  const row = { hash: sha256Hex(token), hint: tokenHint(token), at: clock.now() };
  // One at a time across processes: two runs at once must not both find none and make two.
  return exclusiveTransaction(db, OPERATOR_CREDENTIAL_LOCK, async (trx) => {
    const existing = await store.theCredential(trx);
    if (existing) {
      await store.rotateCredential(trx, existing.workspace_id, row);
      return { workspaceId: existing.workspace_id, workspaceAuthToken: token };
    }
    const workspaceId = `ws_${randomBytes(18).toString("base64url")}`;
    await store.insertCredential(trx, {
      workspace_id: workspaceId,
      token_hash: row.hash,
      token_hint: row.hint,
      created_at: row.at,
      workspaces_created: 0,
    });
    return { workspaceId, workspaceAuthToken: token };
  });
}

/** Removes the operator credential: the operator API refuses everyone until create-token runs again. */
export async function revokeOperatorToken(db: Db): Promise<void> {
  if ((await store.deleteCredentials(db)) === 0) throw notFound("No operator token to revoke.");
}

/**
 * Resolves the operator headers to the operator's id; the token is compared in constant time.
 * Nothing is cached, so a rotated or revoked token is refused by the next request in every process.
 */
export async function authenticateOperator(db: Db, workspaceId: unknown, token: unknown): Promise<string> {
  if (typeof workspaceId !== "string" || workspaceId === "")
    throw invalidArgument(OPERATOR_MESSAGES.missingId);
  if (typeof token !== "string" || token === "") throw invalidArgument(OPERATOR_MESSAGES.missingToken);
  // Bounded before it reaches the database: a real id is 27 characters.
  const row = workspaceId.length <= 256 ? await store.findCredential(db, workspaceId) : undefined;
  if (!row) throw notFound(OPERATOR_MESSAGES.unknownWorkspace);
  if (!matchesAny(sha256Hex(token), [row]))
    throw new ApiError("UNAUTHENTICATED", OPERATOR_MESSAGES.wrongToken);
  return row.workspace_id;
}

interface ApiKeySummary {
  id: string;
  apiKeyName: string;
  type: string;
}

/** Workspaces not made by apikey/create have no stored type: they serve real traffic. */
const DEFAULT_TYPE = "production";

async function summaries(db: Db, list: readonly Workspace[]): Promise<ApiKeySummary[]> {
  const types = await store.typesOf(
    db,
    list.map((w) => w.id),
  );
  return list.map((w) => ({ id: w.id, apiKeyName: w.name, type: types.get(w.id) ?? DEFAULT_TYPE }));
}

/** `workspace/get`: the deployment, with its first MAX_API_KEY_LIST workspaces. */
export async function getWorkspace(ctx: OperatorCtx) {
  const db = ctx.reader;
  const credential = await store.findCredential(db, ctx.operatorId);
  const page = await workspaces.pageWorkspaces(db, null, MAX_API_KEY_LIST + 1);
  const listed = await summaries(db, page.slice(0, MAX_API_KEY_LIST));
  return {
    id: ctx.operatorId,
    name: "collabd",
    owner: { email: "", id: ctx.operatorId, name: "", avatar: "" },
    authToken: maskToken(credential?.token_hint ?? null),
    apiKeyList: Object.fromEntries(listed.map((s) => [s.id, s])),
    apiKeyListComplete: page.length <= MAX_API_KEY_LIST,
  };
}

/** `apikeys/get`: the deployment's workspaces in API-key order, keyset-paged. */
export async function getApiKeys(ctx: OperatorCtx, input: GetApiKeysInput) {
  const pageSize = Math.min(input.pageSize ?? MAX_API_KEY_PAGE, MAX_API_KEY_PAGE);
  const now = ctx.clock.now();
  const query = { apiKeys: input.apiKeys ?? null, pageSize };
  const binding = `operator:${ctx.operatorId}`;
  const cursor = input.pageToken ? ctx.pageTokens.open(binding, query, input.pageToken, now) : null;
  const after = cursor === null ? null : String(cursor[0]);
  const ids = input.apiKeys ? [...new Set(input.apiKeys)] : undefined;
  const page = await workspaces.pageWorkspaces(ctx.reader, after, pageSize + 1, ids);
  const shown = page.slice(0, pageSize);
  const last = shown.at(-1);
  const pageToken = page.length > pageSize && last ? ctx.pageTokens.seal(binding, query, [last.id], now) : "";
  return { data: await summaries(ctx.reader, shown), pageToken };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * `apikey/create`: a new collabd workspace (features on, as `collabd workspace create`), its
 * profile (owner, type, regions, the service settings sent: stored only), its API key
 * configuration (owner e-mail, enablePrivateComments, requireAutoOrgUser: what apikeyconfig get
 * shows), and with `createAuthToken` its first token. At most COLLABD_OPERATOR_WORKSPACES_MAX per operator credential.
 */
export async function createApiKey(ctx: OperatorCtx, input: CreateApiKeyInput) {
  const { ownerEmail, type, createAuthToken, apiKeyName, ...rest } = input;
  if (ownerEmail === undefined || ownerEmail === "")
    throw invalidArgument(OPERATOR_MESSAGES.ownerEmailRequired, [
      { field: "data.ownerEmail", message: OPERATOR_MESSAGES.ownerEmailRequired },
    ]);
  if (!EMAIL.test(ownerEmail))
    throw invalidArgument(OPERATOR_MESSAGES.badOwnerEmail, [
      { field: "data.ownerEmail", message: OPERATOR_MESSAGES.badOwnerEmail },
    ]);
  for (const field of ["persistenceDBRegion", "realtimeDBRegion"] as const) {
    if (rest[field] !== undefined && type !== "production") {
      const message = `${field} applies to production API keys only.`;
      throw invalidArgument(message, [{ field: `data.${field}`, message }]);
    }
  }
  const workspace = newWorkspace(ctx.clock, { name: apiKeyName ?? defaultName(ownerEmail, type) });
  const token = createAuthToken ? newAuthToken() : null;
  const cap = ctx.config.operatorWorkspacesMax;
  const profile: ApiKeyProfileRow = {
    workspace_id: workspace.id,
    owner_email: ownerEmail,
    type,
    settings: JSON.stringify(storedSettings(rest)),
    created_at: workspace.createdAt,
  };
  await ctx.write(async (trx) => {
    if (!(await store.countCreation(trx, ctx.operatorId, cap))) {
      // Worded as the quotas' refusals: waiting does not help, so no Retry-After.
      throw new ApiError(
        "RESOURCE_EXHAUSTED",
        `Quota exceeded: an operator token may create at most ${cap} workspaces ` +
          "(COLLABD_OPERATOR_WORKSPACES_MAX); nothing was written.",
      );
    }
    await insertNewWorkspace(trx, workspace, token);
    await store.insertProfile(trx, profile);
    // What apikeyconfig get shows: the owner, and the two settings the API key configuration has.
    await mergeApiKeySettings(
      trx,
      workspace.id,
      {
        ownerEmail,
        ...(rest.enablePrivateComments !== undefined
          ? { enablePrivateComments: rest.enablePrivateComments }
          : {}),
        ...(rest.requireAutoOrgUser !== undefined ? { requireAutoOrgUser: rest.requireAutoOrgUser } : {}),
      },
      workspace.createdAt,
    );
  });
  return { apiKey: workspace.id, ...(token ? { authToken: token } : {}) };
}

/** The original names a key after its owner's address: `owner@…` → `Owner Test API Key`. */
function defaultName(ownerEmail: string, type: string): string {
  const local = ownerEmail.slice(0, ownerEmail.indexOf("@")).slice(0, 150);
  const kind = type === "production" ? "Production" : "Test";
  return `${local.charAt(0).toUpperCase()}${local.slice(1)} ${kind} API Key`;
}

/** What the profile keeps of the request's other fields: everything but the two secrets. */
function storedSettings(
  rest: Omit<CreateApiKeyInput, "ownerEmail" | "type" | "createAuthToken" | "apiKeyName">,
) {
  const { emailServiceConfig, webhookServiceConfig, ...plain } = rest;
  const email = emailServiceConfig ? (({ apiKey: _, ...kept }) => kept)(emailServiceConfig) : undefined;
  const webhook = webhookServiceConfig
    ? (({ authToken: _, ...kept }) => kept)(webhookServiceConfig)
    : undefined;
  return {
    ...plain,
    ...(email ? { emailServiceConfig: email } : {}),
    ...(webhook ? { webhookServiceConfig: webhook } : {}),
  };
}

/** `apikey/update`: renames the workspace. */
export async function updateApiKey(ctx: OperatorCtx, input: { apiKey: string; apiKeyName: string }) {
  const renamed = await ctx.write((trx) => workspaces.renameWorkspace(trx, input.apiKey, input.apiKeyName));
  // Remembered authentications carry the workspace's name: forget them once the rename is committed.
  noteAuthWrite();
  if (!renamed) throw notFound(OPERATOR_MESSAGES.apiKeyNotFound);
}

async function workspaceOrNotFound(db: Db, apiKey: string): Promise<Workspace> {
  const workspace = await workspaces.findWorkspace(db, apiKey);
  if (!workspace) throw notFound(OPERATOR_MESSAGES.apiKeyNotFound);
  return workspace;
}

async function domainsOf(db: Db, apiKey: string): Promise<string[]> {
  const profile = await store.findProfile(db, apiKey);
  const settings = profile ? (JSON.parse(profile.settings) as { allowedDomains?: string[] }) : {};
  return settings.allowedDomains ?? [];
}

const tokenName = (createdAt: number) => `Auth token issued ${new Date(createdAt).toISOString()}`;

/** `authtokens/get`: the workspace's newest tokens, masked (docs/compatibility.md "D21"). */
export async function getAuthTokens(ctx: OperatorCtx, input: { apiKey: string }) {
  const db = ctx.reader;
  await workspaceOrNotFound(db, input.apiKey);
  const [tokens, domains] = await Promise.all([
    workspaces.listTokens(db, input.apiKey, MAX_LISTED_TOKENS),
    domainsOf(db, input.apiKey),
  ]);
  return {
    apiKey: input.apiKey,
    authTokens: tokens.map((t) => ({ token: maskToken(t.hint), name: tokenName(t.created_at), domains })),
  };
}

/**
 * `authtoken/reset`: a new token, and every other token of the workspace revoked in the same
 * transaction. Each process's auth cache (workspaces/auth-cache.ts) drops what it remembered
 * with that commit, so the old tokens are refused by the next request everywhere.
 */
export async function resetAuthToken(ctx: OperatorCtx, input: { apiKey: string }) {
  const token = newAuthToken();
  const now = ctx.clock.now();
  await ctx.write(async (trx) => {
    await workspaceOrNotFound(trx, input.apiKey);
    await storeToken(trx, input.apiKey, token, now);
    await workspaces.deleteTokensExcept(trx, input.apiKey, sha256Hex(token));
  });
  // Again after the commit: a request of this process authenticated with an old token between the
  // store's note and the commit must not stay remembered (the writer's own commit moves no data_version).
  noteAuthWrite();
  const domains = await domainsOf(ctx.reader, input.apiKey);
  return { apiKey: input.apiKey, newAuthToken: { token, name: tokenName(now), domains } };
}
