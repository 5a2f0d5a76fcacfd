import { type BodyFormat, deliveryBody } from "./body.js";
import { EgressRefused } from "./egress.js";
import type { EndpointHook } from "./endpoints.js";
import { ERASED } from "./history.js";
import { withWebhookId } from "./payloads.js";
import type { ClaimedDelivery } from "./queue.js";
import type { Sender } from "./sender.js";
import { liveSecrets, type SigningSecrets, type WebhookSettings } from "./settings.js";
import { signatureHeader } from "./signing.js";

/** A workspace's configuration and secrets as the worker reads them at send time. */
export interface WorkspaceHook {
  readonly settings: WebhookSettings;
  readonly secrets: SigningSecrets;
}

/** What a delivery is sent with: the workspace's two URLs, or one advanced webhook endpoint. */
export type DeliveryHook = WorkspaceHook | EndpointHook;

export interface AttemptDeps {
  readonly sender: Sender;
  readonly now: () => number;
  /** Monotonic milliseconds, for durations. */
  readonly elapsed: () => number;
  readonly timeoutMs: number;
}

export interface AttemptOutcome {
  readonly startedAt: number;
  readonly durationMs: number;
  readonly httpStatus: number | null;
  readonly retryAfter: string | null;
  readonly error: string | null;
  /** Retrying cannot help: the destination is refused or the service is off. */
  readonly permanent: boolean;
  /** Nothing was sent: the service or endpoint is off or gone, the content erased. */
  readonly skipped: boolean;
  /** The URL attempted, when it was an endpoint's (its URL as it is now). */
  readonly url?: string;
}

/** Where and how one attempt goes, or why it does not go at all. */
type Target =
  | {
      readonly url: string;
      readonly secrets: readonly string[];
      readonly authToken: string | null;
      readonly format: BodyFormat;
      readonly endpoint: boolean;
    }
  | { readonly skip: string };

/** Deliveries to an endpoint stop once it is deleted or disabled, or advanced webhooks are off. */
export const NOT_SENT_ENDPOINT_GONE = "Not sent: the advanced webhook endpoint was deleted.";
export const NOT_SENT_ENDPOINT_DISABLED = "Not sent: the advanced webhook endpoint is disabled.";
export const NOT_SENT_ADVANCED_OFF = "Not sent: advanced webhooks are disabled for this workspace.";

function targetOf(delivery: ClaimedDelivery, hook: DeliveryHook | null, at: number): Target {
  if (hook !== null && "endpoint" in hook) {
    if (hook.format === null) return { skip: NOT_SENT_ADVANCED_OFF };
    if (hook.endpoint === null) return { skip: NOT_SENT_ENDPOINT_GONE };
    if (hook.endpoint.disabled) return { skip: NOT_SENT_ENDPOINT_DISABLED };
    return {
      url: hook.endpoint.url,
      secrets: [hook.endpoint.secret],
      authToken: null,
      format: hook.format,
      endpoint: true,
    };
  }
  if (hook === null || !hook.settings.enabled) {
    return { skip: "The webhook service is disabled for this workspace." };
  }
  return {
    url: delivery.url,
    secrets: liveSecrets(hook.secrets, at),
    authToken: hook.settings.authToken,
    format: hook.settings,
    endpoint: false,
  };
}

const ERROR_SNIPPET = 200;

/** Why a delivery whose record was deleted is not attempted (a retry raced the delete). */
export const NOT_SENT_ERASED = "Not sent: its record was deleted, and its content with it.";

/**
 * Makes one attempt (docs/webhooks.md "Delivery"). The body is rebuilt from the stored payload each time:
 * same JSON and `webhook-id` on every retry, fresh timestamp and signature, and the
 * format and token of the configuration as it is now. Never throws.
 */
export async function attemptDelivery(
  delivery: ClaimedDelivery,
  hook: DeliveryHook | null,
  deps: AttemptDeps,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const startedAt = deps.now();
  const started = deps.elapsed();
  const outcome = (fields: Partial<AttemptOutcome>): AttemptOutcome => ({
    startedAt,
    durationMs: Math.max(0, deps.elapsed() - started),
    httpStatus: null,
    retryAfter: null,
    error: null,
    permanent: false,
    skipped: false,
    ...fields,
  });
  const target = targetOf(delivery, hook, startedAt);
  if ("skip" in target) return outcome({ error: target.skip, permanent: true, skipped: true });
  if (delivery.payload === ERASED) {
    return outcome({ error: NOT_SENT_ERASED, permanent: true, skipped: true });
  }
  const url = target.endpoint ? { url: target.url } : {};
  let body: string;
  try {
    body = deliveryBody(withWebhookId(delivery.payload, delivery.id), target.format);
  } catch (error) {
    return outcome({ error: (error as Error).message, permanent: true, ...url });
  }
  const timestamp = Math.floor(startedAt / 1000);
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "collabd-webhooks/1",
    "webhook-id": delivery.id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signatureHeader(target.secrets, delivery.id, timestamp, body),
  };
  if (target.authToken) headers.authorization = `Basic ${target.authToken}`;
  try {
    const response = await deps.sender({
      url: target.url,
      headers,
      body,
      timeoutMs: deps.timeoutMs,
      workspaceId: delivery.workspaceId,
      ...(signal ? { signal } : {}),
    });
    const ok = response.status >= 200 && response.status < 300;
    return outcome({
      httpStatus: response.status,
      retryAfter: response.retryAfter,
      error: ok ? null : describeStatus(response.status, response.body),
      ...url,
    });
  } catch (error) {
    return outcome({ error: describeError(error), permanent: error instanceof EgressRefused, ...url });
  }
}

function describeStatus(status: number, body: string): string {
  const redirect = status >= 300 && status < 400 ? " (redirects are not followed)" : "";
  const snippet = body.trim().slice(0, ERROR_SNIPPET);
  return `HTTP ${status}${redirect}${snippet ? `: ${snippet}` : ""}`;
}

function describeError(error: unknown): string {
  const e = error as { message?: string; code?: string; name?: string };
  if (e?.name === "AbortError") return "Aborted: the worker stopped.";
  if (error instanceof EgressRefused) return error.message;
  const message = e?.message || String(error);
  return e?.code && !message.includes(e.code) ? `${e.code}: ${message}` : message;
}
