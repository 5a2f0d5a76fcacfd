import type { Readable, WriteTx } from "../../db/handles.js";
import type { AdvancedWebhookConfigRow, WebhookEndpointRow } from "../../db/tables.js";
import { lockedForUpdate } from "../../db/transactions.js";
import { type EndpointSettings, endpointSettings } from "../../webhooks/endpoints.js";
import type { EndpointType } from "./schemas.js";

/** The workspace's advanced webhook configuration; undefined until the first enable. */
export function findConfig(db: Readable, workspaceId: string): Promise<AdvancedWebhookConfigRow | undefined> {
  return db
    .selectFrom("advanced_webhook_configs")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
}

/**
 * The configuration, locked to the end of the transaction on PostgreSQL: config updates and
 * endpoint creation of one workspace take their turn, so the endpoint cap and uids hold.
 */
export function lockConfig(trx: WriteTx, workspaceId: string): Promise<AdvancedWebhookConfigRow | undefined> {
  return lockedForUpdate(
    trx,
    trx.selectFrom("advanced_webhook_configs").selectAll().where("workspace_id", "=", workspaceId),
  ).executeTakeFirst();
}

export async function saveConfig(trx: WriteTx, row: AdvancedWebhookConfigRow): Promise<void> {
  const { workspace_id: _, ...fields } = row;
  await trx
    .insertInto("advanced_webhook_configs")
    .values(row)
    .onConflict((oc) => oc.column("workspace_id").doUpdateSet(fields))
    .execute();
}

export async function countEndpoints(db: Readable, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom("webhook_endpoints")
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** An endpoint by its id or its uid. */
export function findEndpoint(
  db: Readable,
  workspaceId: string,
  ref: string,
): Promise<WebhookEndpointRow | undefined> {
  const query = db.selectFrom("webhook_endpoints").selectAll().where("workspace_id", "=", workspaceId);
  return (
    ref.startsWith("ep_") ? query.where("id", "=", ref) : query.where("uid", "=", ref)
  ).executeTakeFirst();
}

export async function insertEndpoint(trx: WriteTx, row: WebhookEndpointRow): Promise<void> {
  await trx.insertInto("webhook_endpoints").values(row).execute();
}

export async function updateEndpoint(
  trx: WriteTx,
  row: Pick<
    WebhookEndpointRow,
    "workspace_id" | "id" | "settings" | "disabled" | "disabled_reason" | "failing_since" | "updated_at"
  >,
): Promise<void> {
  await trx
    .updateTable("webhook_endpoints")
    .set({
      settings: row.settings,
      disabled: row.disabled,
      disabled_reason: row.disabled_reason,
      failing_since: row.failing_since,
      updated_at: row.updated_at,
    })
    .where("workspace_id", "=", row.workspace_id)
    .where("id", "=", row.id)
    .execute();
}

export async function deleteEndpoint(trx: WriteTx, workspaceId: string, id: string): Promise<boolean> {
  const gone = await trx
    .deleteFrom("webhook_endpoints")
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", id)
    .executeTakeFirst();
  return Number(gone.numDeletedRows) > 0;
}

/** One page of endpoints in id order (ids are time-ordered: oldest first), after `afterId`. */
export function listEndpoints(
  db: Readable,
  workspaceId: string,
  afterId: string | null,
  limit: number,
): Promise<WebhookEndpointRow[]> {
  let query = db.selectFrom("webhook_endpoints").selectAll().where("workspace_id", "=", workspaceId);
  if (afterId !== null) query = query.where("id", ">", afterId);
  return query.orderBy("id").limit(limit).execute();
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(Number(ms)).toISOString());

/** An endpoint row as the API shows it; `metadata` and the disable fields are collabd extras. */
export function rowToEndpoint(row: WebhookEndpointRow): EndpointType {
  const s: EndpointSettings = endpointSettings(row);
  return {
    id: row.id,
    url: s.url,
    description: s.description,
    filterTypes: s.filterTypes === null ? null : [...s.filterTypes],
    channels: s.channels === null ? null : [...s.channels],
    disabled: row.disabled === 1,
    rateLimit: s.rateLimit,
    uid: row.uid,
    createdAt: iso(row.created_at)!,
    updatedAt: iso(row.updated_at)!,
    metadata: s.metadata === null ? null : { ...s.metadata },
    disabledReason: row.disabled_reason,
    failingSince: iso(row.failing_since),
  };
}
