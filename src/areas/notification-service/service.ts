import type { Ctx } from "../../context.js";
import type { Readable } from "../../db/handles.js";
import { invalidArgument } from "../../errors.js";
import type { ServiceConfigPatch, UpdateServiceConfigInput } from "./schemas.js";
import { COMMENT_TRIGGER_KEYS, HUDDLE_TRIGGER_KEYS } from "./schemas.js";
import { lockServiceConfig, readServiceConfig, writeServiceConfig } from "./store.js";

export const MESSAGES = {
  retrieved: "Notification configuration retrieved successfully.",
  updated: "Notification configuration updated successfully.",
  nothing: "At least one of useNotificationService or notificationServiceConfig must be provided",
} as const;

interface Batch {
  isEnabled: boolean;
  batchWindowSeconds: number;
  maxActivities: number;
}

/** The whole state, defaults filled in: what get answers and what delivery reads. */
export interface ServiceConfig {
  useNotificationService: boolean;
  notificationServiceConfig: {
    triggers: { comment: Record<string, boolean | undefined>; huddle: Record<string, boolean | undefined> };
    delayConfig: { isEnabled: boolean; delaySeconds: number };
    batchConfig: { document: Batch; user: Batch };
  };
}

/** What is stored: only what was ever set (so "no triggers yet" stays visible to the seeding rule). */
interface Stored {
  useNotificationService?: boolean;
  notificationServiceConfig?: ServiceConfigPatch;
}

const DEFAULT_BATCH: Batch = { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 };

/**
 * Seeded on the first enable: every comment trigger but the suggestion decisions (as the
 * webhook configuration seeds its own), and every huddle trigger (docs/decisions.md "Notification service").
 */
const SEEDED_TRIGGERS = {
  comment: Object.fromEntries(COMMENT_TRIGGER_KEYS.map((key) => [key, !key.startsWith("suggestion")])),
  huddle: Object.fromEntries(HUDDLE_TRIGGER_KEYS.map((key) => [key, true])),
};

/** The stored state with defaults (off, delay 10 s, batch window 10 s, at most 2), as get shows it. */
export function withDefaults(text: string | undefined): ServiceConfig {
  const stored = (text === undefined ? {} : JSON.parse(text)) as Stored;
  const c = stored.notificationServiceConfig ?? {};
  return {
    useNotificationService: stored.useNotificationService ?? false,
    notificationServiceConfig: {
      triggers: { comment: { ...c.triggers?.comment }, huddle: { ...c.triggers?.huddle } },
      delayConfig: { isEnabled: false, delaySeconds: 10, ...c.delayConfig },
      batchConfig: {
        document: { ...DEFAULT_BATCH, ...c.batchConfig?.document },
        user: { ...DEFAULT_BATCH, ...c.batchConfig?.user },
      },
    },
  };
}

/** The workspace's configuration: one indexed read (comment writes read it in their transaction). */
export async function serviceConfig(ctx: Ctx): Promise<ServiceConfig> {
  return withDefaults(await readServiceConfig(ctx.reader, ctx.workspace.id));
}

/** The configuration when the service is on, else null: read in the caller's transaction. */
export async function activeServiceConfig(db: Readable, workspaceId: string): Promise<ServiceConfig | null> {
  const config = withDefaults(await readServiceConfig(db, workspaceId));
  return config.useNotificationService ? config : null;
}

/** Deep merge of plain objects: `patch`'s leaves replace `base`'s, the rest stays. */
function merge<T extends object>(base: T, patch: object): T {
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch)) {
    const before = out[key];
    out[key] =
      value !== null && typeof value === "object" && before !== null && typeof before === "object"
        ? merge(before as object, value as object)
        : value;
  }
  return out as T;
}

/**
 * Merges the request into the stored configuration (docs/compatibility.md "Notification service"):
 * fields left out keep their value. The first `useNotificationService: true` on a config with
 * no triggers seeds the default triggers under what the request sends. Answers the whole state.
 */
export async function updateServiceConfig(ctx: Ctx, input: UpdateServiceConfigInput): Promise<ServiceConfig> {
  if (input.useNotificationService === undefined && input.notificationServiceConfig === undefined) {
    throw invalidArgument(MESSAGES.nothing, [{ field: "data", message: MESSAGES.nothing }]);
  }
  return ctx.write(async (trx) => {
    const text = await lockServiceConfig(trx, ctx.workspace.id);
    let stored = (text === undefined ? {} : JSON.parse(text)) as Stored;
    if (input.useNotificationService === true && stored.notificationServiceConfig?.triggers === undefined) {
      stored = merge(stored, { notificationServiceConfig: { triggers: SEEDED_TRIGGERS } });
    }
    stored = merge(stored, input);
    const next = JSON.stringify(stored);
    await writeServiceConfig(trx, ctx.workspace.id, next, ctx.clock.now());
    return withDefaults(next);
  });
}
