import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import type { AdvancedWebhookConfigRow, WebhookEndpointRow } from "../../db/tables.js";
import { ApiError, failedPrecondition, invalidArgument, notFound } from "../../errors.js";
import { openStringKey } from "../../lib/paging.js";
import { checkQuotas } from "../../quotas/check.js";
import { parsePublicKey } from "../../webhooks/encryption.js";
import { type EndpointSettings, endpointSettings, secretBinding } from "../../webhooks/endpoints.js";
import { seal, unseal } from "../../webhooks/sealed.js";
import { newSigningSecret } from "../../webhooks/signing.js";
import { urlProblem } from "../webhooks/validation.js";
import {
  type AdvancedWebhookConfigType,
  type CreateEndpointInput,
  DEFAULT_ENDPOINT_PAGE,
  type EndpointPageType,
  type EndpointType,
  type GetEndpointsInput,
  type UpdateAdvancedWebhookConfigInput,
  type UpdateEndpointInput,
} from "./schemas.js";
import * as store from "./store.js";

/** The original's messages (docs/compatibility.md "Advanced webhooks"). */
export const DISABLED =
  "Advanced webhooks are disabled for this workspace. Enable them via POST " +
  '/v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.';
export const NOT_CONFIGURED =
  "Advanced webhooks are not configured for this workspace. Enable them first via POST " +
  '/v2/workspace/advancedwebhookconfig/update with { "isEnabled": true }.';
export const FIRST_WRITE_MUST_ENABLE =
  "Advanced webhooks have never been enabled for this workspace: the first update must set isEnabled to true.";
export const NOTHING_TO_UPDATE =
  "At least one of isEnabled, encryptData, encodeData, publicKey or enableDataProtection must be provided.";
export const NO_ENDPOINT_FIELD = "At least one endpoint field besides endpointId must be provided.";
export const UNKNOWN_ENDPOINT = "Advanced webhook provider request failed.";
export const BAD_URL = "url must be a valid http(s) URL.";

/** An update waits at most this long for a URL's name to resolve (as the webhook configuration does). */
const URL_LOOKUP_WAIT_MS = 2_000;

function configView(row: AdvancedWebhookConfigRow | undefined): AdvancedWebhookConfigType {
  return {
    isEnabled: row?.enabled === 1,
    encryptData: row?.encrypt_data === 1,
    encodeData: row?.encode_data === 1,
    publicKey: row?.public_key ?? "",
    enableDataProtection: row?.enable_data_protection === 1,
  };
}

/** Every workspace is entitled to advanced webhooks (docs/decisions.md): defaults until the first enable. */
export async function getConfig(ctx: Ctx): Promise<AdvancedWebhookConfigType> {
  return configView(await store.findConfig(ctx.reader, ctx.workspace.id));
}

/** Partial update; the first write must enable. Answers the whole configuration after the write. */
export async function updateConfig(
  ctx: Ctx,
  input: UpdateAdvancedWebhookConfigInput,
): Promise<AdvancedWebhookConfigType> {
  if (Object.keys(input).length === 0) throw invalidArgument(NOTHING_TO_UPDATE);
  const publicKey =
    input.publicKey === undefined ? undefined : input.publicKey.trim() === "" ? null : input.publicKey;
  if (publicKey) {
    const checked = parsePublicKey(publicKey);
    if ("problem" in checked) {
      throw invalidArgument(`data.publicKey is not usable: ${checked.problem}`, [
        { field: "data.publicKey", message: checked.problem },
      ]);
    }
  }
  return ctx.write(async (trx) => {
    const stored = await store.lockConfig(trx, ctx.workspace.id);
    if (stored === undefined && input.isEnabled !== true) throw failedPrecondition(FIRST_WRITE_MUST_ENABLE);
    const flag = (value: boolean | undefined, was: number | undefined) =>
      value === undefined ? (was ?? 0) : value ? 1 : 0;
    const row: AdvancedWebhookConfigRow = {
      workspace_id: ctx.workspace.id,
      enabled: flag(input.isEnabled, stored?.enabled),
      encode_data: flag(input.encodeData, stored?.encode_data),
      encrypt_data: flag(input.encryptData, stored?.encrypt_data),
      public_key: publicKey === undefined ? (stored?.public_key ?? null) : publicKey,
      enable_data_protection: flag(input.enableDataProtection, stored?.enable_data_protection),
      updated_at: ctx.clock.now(),
    };
    if (row.encrypt_data === 1 && !row.public_key) {
      throw invalidArgument("data.publicKey is required when encryptData is true.", [
        { field: "data.publicKey", message: "Required when encryptData is true." },
      ]);
    }
    await store.saveConfig(trx, row);
    return configView(row);
  });
}

/** Endpoint operations need advanced webhooks on; in a write, the configuration is locked until commit. */
function requireEnabled(config: AdvancedWebhookConfigRow | undefined, neverMessage = DISABLED): void {
  if (config === undefined) throw failedPrecondition(neverMessage);
  if (config.enabled !== 1) throw failedPrecondition(DISABLED);
}

async function checkedUrl(ctx: Ctx, url: string): Promise<string> {
  const why = await urlProblem(url, {
    allowPrivateUrls: ctx.config.webhookAllowPrivateUrls,
    resolver: ctx.webhookResolver,
    workspaceId: ctx.workspace.id,
    waitMs: Math.min(URL_LOOKUP_WAIT_MS, ctx.config.webhookDnsTimeoutMs),
  });
  if (why) throw invalidArgument(BAD_URL, [{ field: "data.url", message: why }]);
  return url;
}

async function endpointOf(db: Ctx["reader"] | WriteTx, ctx: Ctx, ref: string): Promise<WebhookEndpointRow> {
  const row = await store.findEndpoint(db, ctx.workspace.id, ref);
  if (!row) throw notFound(UNKNOWN_ENDPOINT);
  return row;
}

export async function createEndpoint(ctx: Ctx, input: CreateEndpointInput): Promise<EndpointType> {
  const url = await checkedUrl(ctx, input.url);
  const settings: EndpointSettings = {
    url,
    description: input.description ?? null,
    filterTypes: input.filterTypes ? [...new Set(input.filterTypes)] : null,
    channels: input.channels ? [...new Set(input.channels)] : null,
    rateLimit: input.rateLimit ?? null,
    metadata: input.metadata ?? null,
  };
  return ctx.write(async (trx) => {
    requireEnabled(await store.lockConfig(trx, ctx.workspace.id));
    const cap = ctx.config.webhookEndpointsMax;
    if ((await store.countEndpoints(trx, ctx.workspace.id)) >= cap) {
      // Worded as the quotas' refusals: waiting does not help, so no Retry-After.
      throw new ApiError(
        "RESOURCE_EXHAUSTED",
        `Quota exceeded: a workspace may have at most ${cap} advanced webhook endpoints ` +
          "(COLLABD_WEBHOOK_ENDPOINTS_MAX); nothing was written. Delete one first.",
      );
    }
    if (input.uid !== undefined && (await store.findEndpoint(trx, ctx.workspace.id, input.uid))) {
      const message = `Another endpoint of this workspace has the uid ${JSON.stringify(input.uid)}.`;
      throw invalidArgument(`data.uid: ${message}`, [{ field: "data.uid", message }]);
    }
    const now = ctx.clock.now();
    const id = `ep_${ctx.ids()}`;
    const row: WebhookEndpointRow = {
      workspace_id: ctx.workspace.id,
      id,
      uid: input.uid ?? null,
      settings: JSON.stringify(settings),
      disabled: input.disabled === true ? 1 : 0,
      disabled_reason: null,
      failing_since: null,
      secret: seal(ctx.keys.atRest, secretBinding(ctx.workspace.id, id), newSigningSecret()),
      created_at: now,
      updated_at: now,
    };
    await store.insertEndpoint(trx, row);
    await checkQuotas(trx, ctx);
    return store.rowToEndpoint(row);
  });
}

export async function updateEndpoint(ctx: Ctx, input: UpdateEndpointInput): Promise<EndpointType> {
  const { endpointId, ...fields } = input;
  if (Object.keys(fields).length === 0) throw invalidArgument(NO_ENDPOINT_FIELD);
  const url = fields.url === undefined ? undefined : await checkedUrl(ctx, fields.url);
  return ctx.write(async (trx) => {
    requireEnabled(await store.lockConfig(trx, ctx.workspace.id));
    const row = await endpointOf(trx, ctx, endpointId);
    const was = endpointSettings(row);
    const pick = <K extends keyof EndpointSettings>(name: K, value: EndpointSettings[K] | undefined) =>
      value === undefined ? was[name] : value;
    const settings: EndpointSettings = {
      url: url ?? was.url,
      description: pick("description", fields.description),
      filterTypes: pick("filterTypes", fields.filterTypes && [...new Set(fields.filterTypes)]),
      channels: pick("channels", fields.channels && [...new Set(fields.channels)]),
      rateLimit: pick("rateLimit", fields.rateLimit),
      metadata: pick("metadata", fields.metadata),
    };
    // Enabling again clears what an automatic disable left; the caller's own disable has no reason.
    const reenabled = fields.disabled === false;
    const next: WebhookEndpointRow = {
      ...row,
      settings: JSON.stringify(settings),
      disabled: fields.disabled === undefined ? row.disabled : fields.disabled ? 1 : 0,
      disabled_reason: fields.disabled === undefined ? row.disabled_reason : null,
      failing_since: reenabled ? null : row.failing_since,
      updated_at: ctx.clock.now(),
    };
    await store.updateEndpoint(trx, next);
    await checkQuotas(trx, ctx);
    return store.rowToEndpoint(next);
  });
}

/** Deletes an endpoint; its pending deliveries are not sent (each fails as it comes due). */
export async function deleteEndpoint(ctx: Ctx, ref: string): Promise<{ endpointId: string; deleted: true }> {
  return ctx.write(async (trx) => {
    requireEnabled(await store.lockConfig(trx, ctx.workspace.id));
    const row = await endpointOf(trx, ctx, ref);
    await store.deleteEndpoint(trx, ctx.workspace.id, row.id);
    return { endpointId: row.id, deleted: true as const };
  });
}

export async function endpointSecret(ctx: Ctx, ref: string): Promise<{ endpointId: string; secret: string }> {
  requireEnabled(await store.findConfig(ctx.reader, ctx.workspace.id));
  const row = await endpointOf(ctx.reader, ctx, ref);
  return {
    endpointId: row.id,
    secret: unseal(ctx.keys.atRest, secretBinding(ctx.workspace.id, row.id), row.secret),
  };
}

/** What a page token of the endpoint list is bound to: nothing of the request, so `limit` may change. */
const LIST = { list: "advancedWebhookEndpoints" };

export async function getEndpoints(ctx: Ctx, input: GetEndpointsInput): Promise<EndpointPageType> {
  requireEnabled(await store.findConfig(ctx.reader, ctx.workspace.id), NOT_CONFIGURED);
  const now = ctx.clock.now();
  const after = openStringKey(ctx, LIST, input.iterator, now);
  const limit = input.limit ?? DEFAULT_ENDPOINT_PAGE;
  const rows = await store.listEndpoints(ctx.reader, ctx.workspace.id, after, limit + 1);
  const done = rows.length <= limit;
  const page = rows.slice(0, limit);
  return {
    endpoints: page.map(store.rowToEndpoint),
    iterator: done ? null : ctx.pageTokens.seal(ctx.workspace.id, LIST, [page.at(-1)!.id], now),
    prevIterator: null,
    done,
  };
}
