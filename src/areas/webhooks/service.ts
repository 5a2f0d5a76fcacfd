import type { Ctx } from "../../context.js";
import { invalidArgument } from "../../errors.js";
import { pageBounds } from "../../lib/bounds.js";
import type { ItemOutcome } from "../../lib/outcomes.js";
import { nextPageToken, openTimeSortKey } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import { notifyOutbox } from "../../webhooks/outbox.js";
import {
  ensureConfigRow,
  findConfigRow,
  rotateSigningSecretIn,
  secretsFromRow,
  settingsFromRow,
  type WebhookSettings,
  writeSettings,
} from "../../webhooks/settings.js";
import {
  DEFAULT_GRACE_SECONDS,
  type DeliveryViewType,
  type GetDeliveriesInput,
  type RotatedSigningSecretType,
  type WebhookConfigViewType,
} from "./schemas.js";
import * as store from "./store.js";
import { type ConfigPatch, INVALID_CONFIG, parsePatch } from "./validation.js";

/** An update waits at most this long for a URL's name to resolve (docs/webhooks.md). */
const CONFIG_LOOKUP_WAIT_MS = 2_000;

/** The nine comment triggers and the two huddle ones (docs/webhooks.md "Configure"): `true` on first enable. */
export const DEFAULT_TRIGGERS = [
  "comment_annotation.add",
  "comment.add",
  "comment.update",
  "comment.delete",
  "comment_annotation.status_change",
  "comment_annotation.assign",
  "comment_annotation.priority_change",
  "comment.reaction_add",
  "comment.reaction_delete",
  "huddle.create",
  "huddle.join",
] as const;

/** Seeded `false` on first enable: the original's opt-in keys (docs/contract.md "Webhook configuration"). */
export const OPT_IN_TRIGGERS = [
  "crdt.update_data",
  "recorder.done",
  "comment_annotation.suggestion_accept",
  "comment_annotation.suggestion_reject",
] as const;

/**
 * Merges an update into the stored configuration (docs/contract.md "Webhook configuration"; docs/webhooks.md "Configure"). The input is
 * checked before the transaction (URL checks may resolve names); the merged result is
 * checked inside it, under a row lock, so a rejected update changes nothing.
 */
export async function updateConfig(
  ctx: Ctx,
  data: { useWebhookService?: unknown; webhookServiceConfig?: unknown },
): Promise<void> {
  const patch = await parsePatch(data, {
    allowPrivateUrls: ctx.config.webhookAllowPrivateUrls,
    resolver: ctx.webhookResolver,
    workspaceId: ctx.workspace.id,
    waitMs: Math.min(CONFIG_LOOKUP_WAIT_MS, ctx.config.webhookDnsTimeoutMs),
  });
  const key = ctx.keys.atRest;
  await ctx.write(async (trx) => {
    const now = ctx.clock.now();
    const row = await ensureConfigRow(trx, key, ctx.workspace.id, now, { forUpdate: true });
    const merged = merge(settingsFromRow(row, key), patch);
    if (merged.encryptData && !merged.publicKey) {
      throw invalidArgument(INVALID_CONFIG, [
        { field: "data.webhookServiceConfig.publicKey", message: "Required when encryptData is true." },
      ]);
    }
    await writeSettings(trx, key, ctx.workspace.id, merged, now);
  });
}

function merge(stored: WebhookSettings, patch: ConfigPatch): WebhookSettings {
  const triggers: Record<string, boolean> = { ...stored.triggers, ...patch.triggers };
  const enabled = patch.enabled ?? stored.enabled;
  let defaultsApplied = stored.defaultsApplied;
  // Seeded false by the first enable (docs/contract.md "Webhook configuration"): false is also its stored default, so a value
  // set before then is kept, as triggers set before are.
  const enableDataProtection = patch.enableDataProtection ?? stored.enableDataProtection;
  if (enabled && !defaultsApplied) {
    // Keys already stored or sent in this request win over the seed.
    for (const trigger of DEFAULT_TRIGGERS) if (!(trigger in triggers)) triggers[trigger] = true;
    for (const trigger of OPT_IN_TRIGGERS) if (!(trigger in triggers)) triggers[trigger] = false;
    defaultsApplied = true;
  }
  const pick = <K extends keyof ConfigPatch & keyof WebhookSettings>(name: K) =>
    (patch[name] === undefined ? stored[name] : patch[name]) as WebhookSettings[K];
  return {
    enabled,
    authToken: pick("authToken"),
    rawNotificationUrl: pick("rawNotificationUrl"),
    processedNotificationUrl: pick("processedNotificationUrl"),
    encodeData: pick("encodeData"),
    encryptData: pick("encryptData"),
    publicKey: pick("publicKey"),
    triggers,
    defaultsApplied,
    enableDataProtection,
    payloadFormat: patch.payloadFormat ?? stored.payloadFormat,
  };
}

/** The configuration as stored, the auth token masked, and the signing secret in full. */
export async function getConfig(ctx: Ctx): Promise<WebhookConfigViewType> {
  const key = ctx.keys.atRest;
  const now = ctx.clock.now();
  // The row exists after the first call: read it without waiting behind writes, and write only the first time.
  const row =
    (await findConfigRow(ctx.reader, ctx.workspace.id)) ??
    (await ctx.write((trx) => ensureConfigRow(trx, key, ctx.workspace.id, now)));
  const settings = settingsFromRow(row, key);
  const secrets = secretsFromRow(row, key);
  // Every field always present, `""` when unset (docs/contract.md "Webhook configuration"); the token masked (docs/compatibility.md "D6").
  const config: WebhookConfigViewType["webhookServiceConfig"] = {
    authToken: settings.authToken === null ? "" : mask(settings.authToken),
    rawNotificationUrl: settings.rawNotificationUrl ?? "",
    processedNotificationUrl: settings.processedNotificationUrl ?? "",
    encodeData: settings.encodeData,
    encryptData: settings.encryptData,
    publicKey: settings.publicKey ?? "",
    enableDataProtection: settings.enableDataProtection,
    payloadFormat: settings.payloadFormat,
    triggers: { ...settings.triggers },
  };
  const view: WebhookConfigViewType = {
    useWebhookService: settings.enabled,
    webhookServiceConfig: config,
    signingSecret: secrets.current,
  };
  if (secrets.previousExpiresAt !== null && secrets.previousExpiresAt > now) {
    view.previousSigningSecretExpiresAt = secrets.previousExpiresAt;
  }
  return view;
}

/**
 * A new signing secret, as the CLI's `webhook rotate-secret` makes it: the old one keeps
 * signing for the grace (seconds), so receivers switch without rejecting a delivery.
 */
export async function rotateSecret(
  ctx: Ctx,
  graceSeconds: number = DEFAULT_GRACE_SECONDS,
): Promise<RotatedSigningSecretType> {
  const secrets = await ctx.write((trx) =>
    rotateSigningSecretIn(trx, ctx.keys.atRest, ctx.workspace.id, ctx.clock.now(), graceSeconds * 1000),
  );
  return { signingSecret: secrets.current, previousSigningSecretExpiresAt: secrets.previousExpiresAt };
}

/** Shows the last four characters of a long token, nothing of a short one. */
export const mask = (token: string): string => (token.length >= 12 ? `****${token.slice(-4)}` : "****");

export interface DeliveryPage {
  readonly deliveries: DeliveryViewType[];
  readonly pageToken: string;
}

/** The delivery log, newest first, keyset-paged like every list (docs/contract.md "Lists and page tokens"). */
export async function getDeliveries(ctx: Ctx, input: GetDeliveriesInput): Promise<DeliveryPage> {
  const bounds = pageBounds(ctx.config, input.pageSize);
  const { pageToken, ...rest } = input;
  const query = { ...rest, pageSize: bounds.limit };
  const now = ctx.clock.now();
  const after = openTimeSortKey(ctx, query, pageToken, now);
  const page = await store.listDeliveries(
    ctx.reader,
    {
      workspaceId: ctx.workspace.id,
      ...(input.status ? { status: input.status } : {}),
      ...(input.event ? { event: input.event } : {}),
      ...(input.deliveryIds ? { ids: input.deliveryIds } : {}),
      ...(input.endpointId ? { endpointId: input.endpointId } : {}),
    },
    after,
    bounds,
    input.includePayload === true,
  );
  const attempts = await store.attemptsOf(
    ctx.reader,
    ctx.workspace.id,
    page.rows.map((r) => r.id),
  );
  const byDelivery = new Map<string, typeof attempts>();
  for (const a of attempts) {
    const list = byDelivery.get(a.delivery_id);
    if (list) list.push(a);
    else byDelivery.set(a.delivery_id, [a]);
  }
  return {
    deliveries: page.rows.map((row) => store.rowToDeliveryView(row, byDelivery.get(row.id) ?? [])),
    pageToken: nextPageToken(ctx, query, page.next, now),
  };
}

/** Attempts deliveries again now, with a fresh schedule; per-id outcomes (docs/contract.md "Per-item outcomes"). */
export async function retryDeliveries(
  ctx: Ctx,
  ids: readonly string[],
): Promise<Record<string, ItemOutcome>> {
  const unique = [...new Set(ids)];
  const { requeued, statuses } = await ctx.write(async (trx) => {
    const requeued = new Set(await store.requeue(trx, ctx.workspace.id, unique, ctx.clock.now()));
    await checkQuotas(trx, ctx);
    const statuses = await store.deliveryStatuses(trx, ctx.workspace.id, unique);
    if (requeued.size > 0) await notifyOutbox(trx);
    return { requeued, statuses };
  }, unique.length);
  return Object.fromEntries(
    unique.map((id): [string, ItemOutcome] => {
      if (requeued.has(id)) return [id, { success: true, message: "Delivery queued for retry." }];
      const found = statuses.get(id);
      if (found?.erased) {
        return [
          id,
          {
            success: false,
            message: "Delivery not retried: its record was deleted, and its content with it.",
          },
        ];
      }
      if (found?.status === "delivering")
        return [id, { success: true, message: "Delivery is being attempted now." }];
      return [id, { success: false, message: "Delivery not found." }];
    }),
  );
}
