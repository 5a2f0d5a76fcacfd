import type { Ctx } from "../../context.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import { ApiError, invalidArgument } from "../../errors.js";
import { createJob } from "../../jobs/store.js";
import { checkQuotas } from "../../quotas/check.js";
import { COMMENT_ACTIONS, type CommentTrigger } from "../../webhooks/comment-payloads.js";
import { COMMENT_TRIGGER_KEYS } from "../notification-service/schemas.js";
import { noteAuthWrite } from "../workspaces/auth-cache.js";
import { findWorkspace, updateWorkspaceSettings } from "../workspaces/store.js";
import { DEFAULT_ACCESS } from "./job.js";
import type { ActivityConfigPatch, UpdateApiKeyConfigInput } from "./schemas.js";
import { lockConfigs, readConfigs, writeConfig } from "./store.js";

// The activity log and API key configurations (docs/compatibility.md "Workspace configuration"):
// the verbs of their operations, and what activities and comments read of them in their transactions.

export const ACTIVITY_MESSAGES = {
  retrieved: "Activity logs configuration retrieved successfully.",
  updated: "Activity logs configuration updated successfully.",
  nothing: "At least one field must be provided for update",
} as const;

/** What is stored beside the workspace's activity switch: only what was ever set. */
export interface ActivityConfig {
  immutable?: boolean;
  enabledTime?: number;
  triggers?: { comment?: Partial<Record<string, boolean>> };
}

/** get's and update's answer: `isEnabled` always, the rest as stored. */
export interface ActivityConfigView {
  activityServiceConfig: ActivityConfig & { isEnabled: boolean };
}

/**
 * Seeded on the first enable (docs/compatibility.md "Workspace configuration"): every comment
 * trigger on, suggestion decisions included, and the log immutable.
 */
const seeded = (now: number): ActivityConfig => ({
  immutable: true,
  enabledTime: now,
  triggers: { comment: Object.fromEntries(COMMENT_TRIGGER_KEYS.map((key) => [key, true])) },
});

/** The stored configuration, or null when the workspace never set one: one indexed read. */
export async function storedActivityConfig(
  db: Readable,
  workspaceId: string,
): Promise<ActivityConfig | null> {
  const { activity } = await readConfigs(db, workspaceId);
  return activity === null ? null : (JSON.parse(activity) as ActivityConfig);
}

/** Whether the comment event writes an activity record by itself under `config`. */
export function triggersActivity(config: ActivityConfig | null, event: CommentTrigger): boolean {
  return config?.triggers?.comment?.[COMMENT_ACTIONS[event]] === true;
}

function view(isEnabled: boolean, config: ActivityConfig | null): ActivityConfigView {
  return { activityServiceConfig: { isEnabled, ...config } };
}

export async function activityConfig(ctx: Ctx): Promise<ActivityConfigView> {
  return view(ctx.workspace.activityService, await storedActivityConfig(ctx.reader, ctx.workspace.id));
}

/**
 * Merges the request into the stored configuration; `isEnabled` sets the workspace's activity
 * switch, the value the CLI's `--activity-service` sets. `isEnabled: true` with nothing stored
 * yet seeds the defaults first, under the request's own values. Answers the whole state.
 */
export async function updateActivityConfig(
  ctx: Ctx,
  patch: ActivityConfigPatch,
): Promise<ActivityConfigView> {
  if (Object.keys(patch).length === 0) {
    throw invalidArgument(ACTIVITY_MESSAGES.nothing, [
      { field: "data.activityServiceConfig", message: ACTIVITY_MESSAGES.nothing },
    ]);
  }
  const workspaceId = ctx.workspace.id;
  const now = ctx.clock.now();
  const answer = await ctx.write(async (trx) => {
    const { isEnabled, ...rest } = patch;
    const { activity } = await lockConfigs(trx, workspaceId, now);
    let config = activity === null ? null : (JSON.parse(activity) as ActivityConfig);
    if (config === null && isEnabled === true) config = seeded(now);
    const next: ActivityConfig = {
      ...config,
      ...rest,
      ...(rest.triggers || config?.triggers
        ? { triggers: { comment: { ...config?.triggers?.comment, ...rest.triggers?.comment } } }
        : {}),
    };
    await writeConfig(trx, workspaceId, "activity_config", JSON.stringify(next), now);
    if (isEnabled !== undefined)
      await updateWorkspaceSettings(trx, workspaceId, { activityService: isEnabled });
    const workspace = await findWorkspace(trx, workspaceId);
    return view(workspace?.activityService ?? false, next);
  });
  // Again after the commit: a request authenticated meanwhile must not keep the old switch.
  if (patch.isEnabled !== undefined) noteAuthWrite();
  return answer;
}

export const APIKEY_MESSAGES = {
  retrieved: "API key metadata retrieved successfully.",
  updated: "API key configuration updated successfully.",
  nothing: "At least one field must be provided for update",
  noAi: "collabd runs no AI models.",
  privateOff: "Private comments are not enabled for this workspace.",
} as const;

/** What is stored: only what was ever set. */
export interface Stored {
  enablePrivateComments?: boolean;
  requireJwtToken?: boolean;
  requireAutoOrgUser?: boolean;
  ownerEmail?: string;
}

/** The stored settings, defaults not filled in. */
async function stored(db: Readable, workspaceId: string): Promise<Stored> {
  return parsed((await readConfigs(db, workspaceId)).apikey);
}

const parsed = (apikey: string | null): Stored => (apikey === null ? {} : (JSON.parse(apikey) as Stored));

/**
 * Whether threads may have a visibility other than public. On unless turned off: collabd
 * workspaces had private threads before the setting existed (docs/decisions.md).
 */
async function privateCommentsEnabled(db: Readable, workspaceId: string): Promise<boolean> {
  return (await stored(db, workspaceId)).enablePrivateComments !== false;
}

/**
 * Refuses threads whose visibility is not public while the workspace has private comments
 * off (apikeyconfig `enablePrivateComments: false`); reads nothing when every thread is public.
 */
export async function requirePrivateComments(
  ctx: Ctx,
  threads: readonly { visibility?: { type: string } | undefined }[],
): Promise<void> {
  const index = threads.findIndex((t) => t.visibility !== undefined && t.visibility.type !== "public");
  if (index < 0 || (await privateCommentsEnabled(ctx.reader, ctx.workspace.id))) return;
  const field = `data.commentAnnotations[${index}].visibility`;
  throw new ApiError("FAILED_PRECONDITION", APIKEY_MESSAGES.privateOff, [
    { field, message: APIKEY_MESSAGES.privateOff },
  ]);
}

/** The workspace's contact as apikeyconfig get shows it (CLI `workspace update --owner-email`). */
export async function setOwnerEmail(ctx: Ctx, email: string): Promise<void> {
  await ctx.write((trx) =>
    mergeApiKeySettings(trx, ctx.workspace.id, { ownerEmail: email }, ctx.clock.now()),
  );
}

/**
 * Merges settings of the API key configuration inside the caller's transaction: the CLI's owner
 * e-mail, and what the operator API's apikey/create sets on the workspace it makes
 * (docs/contract.md "Operator API").
 */
export async function mergeApiKeySettings(
  trx: WriteTx,
  workspaceId: string,
  patch: Stored,
  now: number,
): Promise<void> {
  const before = parsed((await lockConfigs(trx, workspaceId, now)).apikey);
  await writeConfig(trx, workspaceId, "apikey_config", JSON.stringify({ ...before, ...patch }), now);
}

/** The workspace's contact, or null when none was set. */
export async function ownerEmail(db: Readable, workspaceId: string): Promise<string | null> {
  return (await stored(db, workspaceId)).ownerEmail ?? null;
}

export async function apiKeyConfig(ctx: Ctx) {
  const settings = await stored(ctx.reader, ctx.workspace.id);
  return {
    ownerEmail: settings.ownerEmail ?? null,
    planInfo: { type: "self-hosted" },
    defaultDocumentAccessType: ctx.workspace.defaultAccessType,
    isPrivateCommentsEnabled: settings.enablePrivateComments !== false,
    requireJwtToken: settings.requireJwtToken === true,
    requireAutoOrgUser: settings.requireAutoOrgUser === true,
  };
}

/**
 * Sets the fields sent (nothing is removed) and answers them with their values after the write.
 * A new defaultDocumentAccessType is the workspace's setting (as the CLI sets it); top-level
 * folders that inherit take it in a durable job, at most a batch of top-level folders per transaction.
 */
export async function updateApiKeyConfig(
  ctx: Ctx,
  input: UpdateApiKeyConfigInput,
): Promise<Record<string, unknown>> {
  if (input.aiModelApiKey !== undefined) {
    throw invalidArgument(APIKEY_MESSAGES.noAi, [
      { field: "data.aiModelApiKey", message: APIKEY_MESSAGES.noAi },
    ]);
  }
  const { defaultDocumentAccessType: access, aiModelApiKey: _none, ...flags } = input;
  if (access === undefined && Object.keys(flags).length === 0) {
    throw invalidArgument(APIKEY_MESSAGES.nothing, [{ field: "data", message: APIKEY_MESSAGES.nothing }]);
  }
  const workspaceId = ctx.workspace.id;
  const now = ctx.clock.now();
  const job = await ctx.write(async (trx) => {
    const before = parsed((await lockConfigs(trx, workspaceId, now)).apikey);
    // Nothing to change (the original skips this write too): no row rewritten.
    const changed = Object.entries(flags).some(([key, value]) => before[key as keyof Stored] !== value);
    if (changed)
      await writeConfig(trx, workspaceId, "apikey_config", JSON.stringify({ ...before, ...flags }), now);
    if (access === undefined) return null;
    const workspace = await findWorkspace(trx, workspaceId);
    if (!workspace || workspace.defaultAccessType === access) return null;
    await updateWorkspaceSettings(trx, workspaceId, { defaultAccessType: access });
    const id = ctx.ids();
    await createJob(trx, {
      workspaceId,
      id,
      type: DEFAULT_ACCESS,
      tasks: [{ kind: "organizations", subject: null }],
      now,
    });
    // The job's rows count as records: past the quota, the change is refused whole.
    await checkQuotas(trx, ctx);
    return id;
  });
  if (access !== undefined) noteAuthWrite();
  if (job !== null) ctx.jobs.kick();
  return { ...flags, ...(access === undefined ? {} : { defaultDocumentAccessType: access }) };
}
