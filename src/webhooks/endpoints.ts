import type { Kysely } from "kysely";
import type {
  AdvancedWebhookConfigRow,
  Tables,
  WebhookDeliveryRow,
  WebhookEndpointRow,
} from "../db/tables.js";
import type { BodyFormat } from "./body.js";
import { binding, unseal } from "./sealed.js";

type Db = Kysely<Tables>;

/**
 * Advanced webhook endpoints as the outbox and the delivery worker see them (docs/webhooks.md
 * "Advanced webhooks"): which events an endpoint takes, the deliveries an event makes, and
 * what an attempt needs at send time. The operations that manage endpoints are in
 * src/areas/advanced-webhooks/.
 */

/** The event types an endpoint may filter on (`filterTypes`); an endpoint without a filter takes every event. */
export const EVENT_TYPES = [
  "comment_annotation.add",
  "comment_annotation.assign",
  "comment_annotation.status_change",
  "comment_annotation.priority_change",
  "comment_annotation.custom_list_change",
  "comment_annotation.subscribe",
  "comment_annotation.unsubscribe",
  "comment_annotation.accept",
  "comment_annotation.reject",
  "comment_annotation.approve",
  "comment_annotation.suggestion_accept",
  "comment_annotation.suggestion_reject",
  "comment.add",
  "comment.update",
  "comment.delete",
  "comment.reaction_add",
  "comment.reaction_delete",
  "huddle.create",
  "huddle.join",
  "crdt.update_data",
  "recorder.done",
  "execution.dispatched",
  "execution.completed",
  "execution.failed",
  "execution.cancelled",
  "step.awaiting-approval",
  "step.completed",
  "step.failed",
  "step.breached",
  "step.cancelled",
  "group.quorum-met",
  "loop.iteration-started",
  "loop.exhausted",
  "message.attempt.exhausted",
] as const;

/** Sent to the endpoints that take it when a delivery to an endpoint failed its last attempt. */
export const EXHAUSTED_EVENT = "message.attempt.exhausted";

/** An endpoint whose every attempt failed for this long is disabled (docs/webhooks.md "Advanced webhooks"). */
export const FAILING_DISABLE_MS = 5 * 86_400_000;

export const AUTO_DISABLED_REASON =
  "Disabled automatically: every delivery attempt to this endpoint failed for 5 days.";

/** What the caller set on an endpoint, stored as the row's `settings` JSON. */
export interface EndpointSettings {
  readonly url: string;
  readonly description: string | null;
  readonly filterTypes: readonly string[] | null;
  readonly channels: readonly string[] | null;
  readonly rateLimit: number | null;
  readonly metadata: Readonly<Record<string, string>> | null;
}

export const endpointSettings = (row: Pick<WebhookEndpointRow, "settings">): EndpointSettings =>
  JSON.parse(row.settings) as EndpointSettings;

/** An event's channels: its organization, and its document inside it. */
export function eventChannels(organizationId: string, documentId: string): string[] {
  return documentId === "" ? [organizationId] : [organizationId, `${organizationId}/${documentId}`];
}

/** Whether an endpoint takes an event: its type passes `filterTypes`, one of its channels is in `channels`. */
export function endpointTakes(
  settings: EndpointSettings,
  event: string,
  channels: readonly string[],
): boolean {
  if (settings.filterTypes !== null && !settings.filterTypes.includes(event)) return false;
  return settings.channels === null || channels.some((c) => settings.channels!.includes(c));
}

/** An endpoint that receives events now: advanced webhooks on, the endpoint not disabled. */
export interface LiveEndpoint {
  readonly id: string;
  readonly settings: EndpointSettings;
}

/**
 * The endpoints an event of the workspace goes to, in the caller's transaction: none while
 * advanced webhooks are off. At most the endpoint cap of rows (docs/webhooks.md).
 */
export async function liveEndpoints(db: Db, workspaceId: string): Promise<LiveEndpoint[]> {
  const rows = await db
    .selectFrom("webhook_endpoints as e")
    .innerJoin("advanced_webhook_configs as c", "c.workspace_id", "e.workspace_id")
    .select(["e.id", "e.settings"])
    .where("e.workspace_id", "=", workspaceId)
    .where("c.enabled", "=", 1)
    .where("e.disabled", "=", 0)
    .orderBy("e.id")
    .execute();
  return rows.map((row) => ({ id: row.id, settings: endpointSettings(row) }));
}

/** One event as the endpoints receive it: the advanced payload, serialized once, without `webhookId`. */
export interface RoutedEvent {
  readonly eventId: string;
  readonly event: string;
  readonly channels: readonly string[];
  readonly payload: string;
}

/** A pending delivery per endpoint that takes the event (kind `advanced`). */
export function endpointDeliveries(
  workspaceId: string,
  endpoints: readonly LiveEndpoint[],
  event: RoutedEvent,
  times: { readonly now: number; readonly due: number },
  newId: () => string,
): WebhookDeliveryRow[] {
  return endpoints
    .filter((e) => endpointTakes(e.settings, event.event, event.channels))
    .map((e) => ({
      workspace_id: workspaceId,
      id: `msg_${newId()}`,
      event_id: event.eventId,
      event: event.event,
      kind: "advanced",
      url: e.settings.url,
      payload: event.payload,
      status: "pending",
      step: 0,
      attempts: 0,
      next_attempt_at: times.due,
      claim: null,
      last_http_status: null,
      last_error: null,
      created_at: times.now,
      updated_at: times.now,
      endpoint_id: e.id,
    }));
}

/** The binding of an endpoint's sealed secret: its workspace and id, so a copied value does not open. */
export const secretBinding = (workspaceId: string, endpointId: string): string =>
  binding(workspaceId, `webhook_endpoints.secret:${endpointId}`);

/** What an attempt to an endpoint needs at send time; `format` is null while advanced webhooks are off. */
export interface EndpointHook {
  readonly endpoint: {
    readonly url: string;
    readonly disabled: boolean;
    readonly rateLimit: number | null;
    readonly secret: string;
  } | null;
  readonly format: BodyFormat | null;
}

export const endpointKey = (workspaceId: string, endpointId: string): string =>
  `${workspaceId}\u0000${endpointId}`;

/**
 * The endpoints of claimed deliveries and their workspaces' advanced configuration, secrets
 * opened: a deleted endpoint maps to `endpoint: null`. Keyed by endpointKey.
 */
export async function loadEndpointHooks(
  db: Db,
  key: Buffer,
  refs: readonly { readonly workspaceId: string; readonly endpointId: string }[],
): Promise<Map<string, EndpointHook>> {
  const out = new Map<string, EndpointHook>();
  if (refs.length === 0) return out;
  const workspaces = [...new Set(refs.map((r) => r.workspaceId))];
  const configs = new Map<string, AdvancedWebhookConfigRow>(
    (
      await db
        .selectFrom("advanced_webhook_configs")
        .selectAll()
        .where("workspace_id", "in", workspaces)
        .execute()
    ).map((row) => [row.workspace_id, row]),
  );
  const rows = await db
    .selectFrom("webhook_endpoints")
    .select(["workspace_id", "id", "settings", "disabled", "secret"])
    .where((eb) =>
      eb(
        eb.refTuple("workspace_id", "id"),
        "in",
        refs.map((r) => eb.tuple(r.workspaceId, r.endpointId)),
      ),
    )
    .execute();
  const found = new Map(rows.map((row) => [endpointKey(row.workspace_id, row.id), row]));
  for (const ref of refs) {
    const k = endpointKey(ref.workspaceId, ref.endpointId);
    const row = found.get(k);
    const config = configs.get(ref.workspaceId);
    const settings = row ? endpointSettings(row) : null;
    out.set(k, {
      endpoint:
        row && settings
          ? {
              url: settings.url,
              disabled: row.disabled === 1,
              rateLimit: settings.rateLimit,
              secret: unseal(key, secretBinding(row.workspace_id, row.id), row.secret),
            }
          : null,
      format:
        config?.enabled === 1
          ? {
              encodeData: config.encode_data === 1,
              encryptData: config.encrypt_data === 1,
              publicKey: config.public_key,
            }
          : null,
    });
  }
  return out;
}

/**
 * After an attempt to an endpoint (in the worker's bookkeeping transaction): a success ends
 * its run of failures; a failure starts one or, once the run has lasted FAILING_DISABLE_MS,
 * disables the endpoint and says why. Attempts not made (endpoint gone, off) do not count.
 */
export async function recordEndpointHealth(
  trx: Db,
  target: { readonly workspaceId: string; readonly endpointId: string },
  ok: boolean,
  now: number,
): Promise<void> {
  const query = trx
    .updateTable("webhook_endpoints")
    .where("workspace_id", "=", target.workspaceId)
    .where("id", "=", target.endpointId);
  if (ok) {
    await query.set({ failing_since: null }).where("failing_since", "is not", null).execute();
    return;
  }
  const since = await query
    .set((eb) => ({ failing_since: eb.fn.coalesce("failing_since", eb.val(now)) }))
    .returning(["failing_since", "disabled"])
    .executeTakeFirst();
  if (!since || since.disabled === 1 || since.failing_since === null) return;
  if (now - Number(since.failing_since) < FAILING_DISABLE_MS) return;
  await trx
    .updateTable("webhook_endpoints")
    .set({ disabled: 1, disabled_reason: AUTO_DISABLED_REASON, updated_at: now })
    .where("workspace_id", "=", target.workspaceId)
    .where("id", "=", target.endpointId)
    .execute();
}
