import { timingSafeEqual } from "node:crypto";
import type { Kysely } from "kysely";
import type { Workspace } from "../../context.js";
import type { Tables } from "../../db/tables.js";
import { transaction } from "../../db/transactions.js";
import { ApiError, invalidArgument, notFound } from "../../errors.js";
import type { Clock } from "../../lib/clock.js";
import { newApiKey, newAuthToken } from "../../lib/ids.js";
import { sha256Hex } from "../../lib/keys.js";
import type { AccessType } from "../hierarchy/paths.js";
import type { AuthCache } from "./auth-cache.js";
import * as store from "./store.js";

type Db = Kysely<Tables>;

export const AUTH_MESSAGES = {
  missingKey: "API key not found in headers.",
  missingToken: "Auth token not found in headers.",
  /** Credentials sent in the body (v1 auth/token/get): the original's words. */
  missingBodyKey: "API key not found.",
  missingBodyToken: "Auth token not found.",
  unknownKey: "Invalid API key.",
  wrongToken: "Invalid auth token.",
} as const;

/**
 * Resolves the two auth headers (or, `inBody`, the body's `apiKey` and `authToken`) to a workspace
 * (docs/contract.md "Authentication"). Every token of the workspace is compared in constant
 * time, so timing tells nothing about which matched. A successful check is remembered by
 * `cache` until anything auth-related is written.
 */
export async function authenticate(
  db: Db,
  apiKey: unknown,
  authToken: unknown,
  cache?: AuthCache,
  inBody = false,
): Promise<Workspace> {
  if (typeof apiKey !== "string" || apiKey === "")
    throw invalidArgument(inBody ? AUTH_MESSAGES.missingBodyKey : AUTH_MESSAGES.missingKey);
  if (typeof authToken !== "string" || authToken === "")
    throw invalidArgument(inBody ? AUTH_MESSAGES.missingBodyToken : AUTH_MESSAGES.missingToken);
  const presentedHash = sha256Hex(authToken);
  const cacheKey = `${apiKey}\u0000${presentedHash}`;
  const cached = cache?.lookup(cacheKey);
  if (cached?.workspace) return cached.workspace;
  const rows = await store.workspaceWithTokenHashes(db, apiKey);
  if (rows.length === 0) throw new ApiError("PERMISSION_DENIED", AUTH_MESSAGES.unknownKey);
  if (!matchesAny(presentedHash, rows)) throw new ApiError("UNAUTHENTICATED", AUTH_MESSAGES.wrongToken);
  const workspace = store.rowToWorkspace(rows[0]!);
  if (cached) cache?.remember(cacheKey, workspace, cached.version);
  return workspace;
}

/** Whether `authToken` is one of the workspace's tokens (a token sent in a body, beside the headers). */
export async function isTokenOf(db: Db, workspaceId: string, authToken: string): Promise<boolean> {
  return matchesAny(sha256Hex(authToken), await store.workspaceWithTokenHashes(db, workspaceId));
}

/** Compares the presented hash with every stored one in constant time, so timing tells nothing about which matched. */
export function matchesAny(presentedHash: string, rows: readonly { token_hash: string | null }[]): boolean {
  const presented = Buffer.from(presentedHash, "hex");
  let matched = false;
  for (const row of rows) {
    if (row.token_hash === null) continue;
    matched = timingSafeEqual(presented, Buffer.from(row.token_hash, "hex")) || matched;
  }
  return matched;
}

export interface NewWorkspace {
  readonly name?: string;
  readonly apiKey?: string;
  readonly activityService?: boolean;
  readonly advancedQueries?: boolean;
  readonly defaultAccessType?: AccessType;
}

export interface Credentials {
  readonly workspace: Workspace;
  readonly apiKey: string;
  readonly authToken: string;
}

/** Creates a workspace with one auth token; features default to on, as for the first-start workspace. */
export async function createWorkspace(
  db: Db,
  clock: Clock,
  input: NewWorkspace = {},
  authToken = newAuthToken(),
  ifAbsent = false,
): Promise<Credentials> {
  const workspace = newWorkspace(clock, input);
  await transaction(db, (trx) => insertNewWorkspace(trx, workspace, authToken, ifAbsent));
  return { workspace, apiKey: workspace.id, authToken };
}

/** A workspace's settings before it is stored: the defaults of `createWorkspace`. */
export function newWorkspace(clock: Clock, input: NewWorkspace): Workspace {
  return {
    id: input.apiKey ?? newApiKey(),
    name: input.name ?? "default",
    activityService: input.activityService ?? true,
    advancedQueries: input.advancedQueries ?? true,
    createdAt: clock.now(),
    // The original's default (docs/contract.md "Folders"); workspaces older than migration 0010 keep organizationPrivate.
    defaultAccessType: input.defaultAccessType ?? "public",
  };
}

/**
 * Stores a workspace made by `newWorkspace` inside the caller's transaction, with its first token
 * if one is given; `ifAbsent`: an existing one of the same id is kept (a configured bootstrap).
 */
export async function insertNewWorkspace(
  trx: Db,
  workspace: Workspace,
  authToken: string | null,
  ifAbsent = false,
) {
  await store.insertWorkspace(trx, workspace, ifAbsent);
  if (authToken !== null) await storeToken(trx, workspace.id, authToken, workspace.createdAt);
}

/** Stores a new token: its hash, and its last four characters to show it masked (`maskToken`). */
export function storeToken(db: Db, workspaceId: string, token: string, now: number): Promise<void> {
  return store.insertTokenHash(db, workspaceId, sha256Hex(token), now, tokenHint(token));
}

/** What is kept of a token to show it masked: its last four characters. */
export const tokenHint = (token: string): string => token.slice(-4);

/** A token as lists show it (docs/compatibility.md "D21"): `at_…` and its last four characters. */
export const maskToken = (hint: string | null): string => `at_…${hint ?? "????"}`;

/** Every workspace of the deployment, for its operator. */
export function listWorkspaces(db: Db): Promise<Workspace[]> {
  return store.listWorkspaces(db);
}

export async function requireWorkspace(db: Db, apiKey: string): Promise<Workspace> {
  const workspace = await store.findWorkspace(db, apiKey);
  if (!workspace) throw notFound("Workspace not found.");
  return workspace;
}

/** Issues a new auth token; existing tokens stay valid until revoked. */
export async function issueToken(db: Db, clock: Clock, apiKey: string): Promise<string> {
  await requireWorkspace(db, apiKey);
  const token = newAuthToken();
  await storeToken(db, apiKey, token, clock.now());
  return token;
}

/** Revokes a token; effective for the next request in every process, since nothing caches tokens. */
export async function revokeToken(db: Db, apiKey: string, token: string): Promise<void> {
  await requireWorkspace(db, apiKey);
  if (!(await store.deleteTokenHash(db, apiKey, sha256Hex(token)))) throw notFound("Auth token not found.");
}

export async function updateSettings(
  db: Db,
  apiKey: string,
  settings: store.WorkspaceSettings,
): Promise<Workspace> {
  await requireWorkspace(db, apiKey);
  await store.updateWorkspaceSettings(db, apiKey, settings);
  return requireWorkspace(db, apiKey);
}

export type BootstrapOutcome =
  | { readonly kind: "created"; readonly credentials: Credentials }
  | { readonly kind: "configured" }
  | { readonly kind: "none" };

/**
 * First start (docs/contract.md "Running the service"): with fixed credentials, make sure that workspace and token
 * exist (idempotent); otherwise create one workspace when the database has none.
 */
export async function bootstrap(
  db: Db,
  clock: Clock,
  fixed: { apiKey: string; authToken: string } | null,
): Promise<BootstrapOutcome> {
  if (fixed) {
    // Idempotent, and safe when several processes start at once on one PostgreSQL database.
    await createWorkspace(db, clock, { apiKey: fixed.apiKey }, fixed.authToken, true);
    return { kind: "configured" };
  }
  // "Empty? then create" under the first-start lock: two processes starting at once on
  // one empty database would otherwise both see it empty and both create one.
  const workspace = newWorkspace(clock, {});
  const authToken = newAuthToken();
  const created = await store.underFirstStartLock(db, async (trx) => {
    if ((await store.countWorkspaces(trx)) > 0) return false;
    await insertNewWorkspace(trx, workspace, authToken);
    return true;
  });
  return created
    ? { kind: "created", credentials: { workspace, apiKey: workspace.id, authToken } }
    : { kind: "none" };
}
