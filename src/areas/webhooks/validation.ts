import type { ErrorDetail } from "../../errors.js";
import { invalidArgument } from "../../errors.js";
import type { HostResolver } from "../../lib/host-resolver.js";
import { destinationProblem } from "../../webhooks/egress.js";
import { parsePublicKey } from "../../webhooks/encryption.js";
import { PAYLOAD_FORMATS, type PayloadFormat } from "../../webhooks/settings.js";

/** What an update asks to change; absent keys keep the stored value, null clears it. */
export interface ConfigPatch {
  enabled?: boolean;
  authToken?: string | null;
  rawNotificationUrl?: string | null;
  processedNotificationUrl?: string | null;
  encodeData?: boolean;
  encryptData?: boolean;
  publicKey?: string | null;
  triggers?: Record<string, boolean>;
  enableDataProtection?: boolean;
  payloadFormat?: PayloadFormat;
}

/** How URLs are checked: the egress policy, and the bounded lookup of their names. */
export interface UrlCheck {
  readonly allowPrivateUrls: boolean;
  readonly resolver: HostResolver;
  readonly workspaceId: string;
  /** The longest a name lookup may hold the update; a name not resolved by then is accepted. */
  readonly waitMs: number;
}

export const INVALID_CONFIG = "Invalid webhook service configuration.";

const CONFIG = "data.webhookServiceConfig";
const CONFIG_FIELDS = new Set([
  "authToken",
  "rawNotificationUrl",
  "processedNotificationUrl",
  "encodeData",
  "encryptData",
  "publicKey",
  "triggers",
  "enableDataProtection",
  "payloadFormat",
]);
const MAX_URL = 2048;
const MAX_TOKEN = 1024;
const MAX_KEY_TEXT = 16_384;
const MAX_TRIGGERS = 200;
/** Visible ASCII and spaces: what fits an HTTP header without smuggling a line break. */
const HEADER_SAFE = /^[\x20-\x7e]*$/;

/**
 * Checks an update (docs/contract.md "Webhook configuration"; docs/webhooks.md "Configure") and collects every problem, so one answer names
 * all the bad fields. Types are checked here, not by the route schema, because any bad
 * field must answer `Invalid webhook service configuration.` with details.
 */
export async function parsePatch(
  data: { useWebhookService?: unknown; webhookServiceConfig?: unknown },
  options: UrlCheck,
): Promise<ConfigPatch> {
  const details: ErrorDetail[] = [];
  const problem = (field: string, message: string) => details.push({ field, message });
  const patch: ConfigPatch = {};
  if (data.useWebhookService === undefined && data.webhookServiceConfig === undefined) {
    problem("data", "Provide useWebhookService, webhookServiceConfig or both.");
  }
  if (data.useWebhookService !== undefined) {
    if (typeof data.useWebhookService === "boolean") patch.enabled = data.useWebhookService;
    else problem("data.useWebhookService", "Must be a boolean.");
  }
  const config = data.webhookServiceConfig;
  if (config !== undefined) {
    if (config === null || typeof config !== "object" || Array.isArray(config)) {
      problem(CONFIG, "Must be an object.");
    } else {
      const fields = config as Record<string, unknown>;
      for (const name of Object.keys(fields)) {
        if (!CONFIG_FIELDS.has(name)) problem(`${CONFIG}.${name}`, `Unknown field ${CONFIG}.${name}.`);
      }
      for (const name of ["encodeData", "encryptData", "enableDataProtection"] as const) {
        const value = fields[name];
        if (value === undefined) continue;
        if (typeof value === "boolean") patch[name] = value;
        else problem(`${CONFIG}.${name}`, "Must be a boolean.");
      }
      const token = clearable(fields.authToken, `${CONFIG}.authToken`, MAX_TOKEN, problem);
      if (token !== undefined) {
        if (token !== null && !HEADER_SAFE.test(token)) {
          problem(`${CONFIG}.authToken`, "Must hold printable ASCII characters only.");
        } else patch.authToken = token;
      }
      for (const name of ["rawNotificationUrl", "processedNotificationUrl"] as const) {
        const url = clearable(fields[name], `${CONFIG}.${name}`, MAX_URL, problem);
        if (url === undefined) continue;
        const why = url === null ? null : await urlProblem(url, options);
        if (why) problem(`${CONFIG}.${name}`, why);
        else patch[name] = url;
      }
      const key = clearable(fields.publicKey, `${CONFIG}.publicKey`, MAX_KEY_TEXT, problem);
      if (key !== undefined) {
        const checked = key === null ? null : parsePublicKey(key);
        if (checked && "problem" in checked) problem(`${CONFIG}.publicKey`, checked.problem);
        else patch.publicKey = key;
      }
      if (fields.payloadFormat !== undefined) {
        const format = fields.payloadFormat;
        if (typeof format === "string" && (PAYLOAD_FORMATS as readonly string[]).includes(format)) {
          patch.payloadFormat = format as PayloadFormat;
        } else problem(`${CONFIG}.payloadFormat`, `Must be one of ${PAYLOAD_FORMATS.join(", ")}.`);
      }
      if (fields.triggers !== undefined) {
        const triggers = parseTriggers(fields.triggers, problem);
        if (triggers) patch.triggers = triggers;
      }
    }
  }
  if (details.length > 0) throw invalidArgument(INVALID_CONFIG, details);
  return patch;
}

/** A string field where `""` (or null) clears the stored value. */
function clearable(
  value: unknown,
  field: string,
  max: number,
  problem: (field: string, message: string) => void,
): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value === "") return null;
  if (typeof value !== "string") {
    problem(field, "Must be a string.");
    return undefined;
  }
  if (value.length > max) {
    problem(field, `Must be at most ${max} characters.`);
    return undefined;
  }
  return value;
}

/** What is wrong with a webhook URL (null: nothing): not absolute http(s), credentials, a refused destination. */
export async function urlProblem(text: string, options: UrlCheck): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "Must be an absolute http or https URL.";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Must be an absolute http or https URL.";
  if (url.username !== "" || url.password !== "") return "Must not contain credentials; use authToken.";
  if (options.allowPrivateUrls) return null;
  return destinationProblem(url, options.resolver, options);
}

/**
 * Trigger keys to booleans. Nested objects are accepted too (docs/contract.md "Webhook configuration"):
 * `{"comment": {"add": true}}` is the key `comment.add`; keys join with `.`, leaves must be
 * booleans, and the result is flat.
 */
function parseTriggers(
  value: unknown,
  problem: (field: string, message: string) => void,
): Record<string, boolean> | null {
  const field = `${CONFIG}.triggers`;
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    problem(field, "Must be an object of trigger keys to booleans.");
    return null;
  }
  const out: Record<string, boolean> = {};
  let ok = true;
  let count = 0;
  const walk = (node: Record<string, unknown>, prefix: string, depth: number) => {
    for (const [part, flag] of Object.entries(node)) {
      const key = prefix === "" ? part : `${prefix}.${part}`;
      if (part.length === 0 || key.length > 256) {
        problem(field, "Trigger keys must be 1 to 256 characters.");
        ok = false;
      } else if (typeof flag === "boolean") {
        if (++count > MAX_TRIGGERS) {
          ok = false;
          return;
        }
        out[key] = flag;
      } else if (flag !== null && typeof flag === "object" && !Array.isArray(flag) && depth < MAX_NESTING) {
        walk(flag as Record<string, unknown>, key, depth + 1);
      } else {
        problem(`${field}.${key}`, "Must be a boolean, or an object of trigger keys to booleans.");
        ok = false;
      }
    }
  };
  walk(value as Record<string, unknown>, "", 1);
  if (count > MAX_TRIGGERS) {
    problem(field, `Must hold at most ${MAX_TRIGGERS} keys.`);
    return null;
  }
  return ok ? out : null;
}

/** Trigger keys are a few dotted parts; deeper nesting is a mistake, not a key. */
const MAX_NESTING = 8;
