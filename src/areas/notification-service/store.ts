import type { Readable, WriteTx } from "../../db/handles.js";
import type { NotificationBatchRow } from "../../db/tables.js";
import { lockedForUpdate } from "../../db/transactions.js";

/** The workspace's stored configuration text, or undefined when never set. */
export async function readServiceConfig(db: Readable, workspaceId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("notification_service_configs")
    .select("config")
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  return row?.config;
}

/** The stored config, its row locked until the transaction ends (PostgreSQL): an update merges into the latest. */
export async function lockServiceConfig(trx: WriteTx, workspaceId: string): Promise<string | undefined> {
  const row = await lockedForUpdate(
    trx,
    trx.selectFrom("notification_service_configs").select("config").where("workspace_id", "=", workspaceId),
  ).executeTakeFirst();
  return row?.config;
}

export async function writeServiceConfig(
  trx: WriteTx,
  workspaceId: string,
  config: string,
  now: number,
): Promise<void> {
  await trx
    .insertInto("notification_service_configs")
    .values({ workspace_id: workspaceId, config, updated_at: now })
    .onConflict((oc) =>
      oc.column("workspace_id").doUpdateSet((eb) => ({
        config: eb.ref("excluded.config"),
        updated_at: eb.ref("excluded.updated_at"),
      })),
    )
    .execute();
}

export interface BatchKey {
  readonly workspaceId: string;
  readonly organizationId: string;
  readonly userId: string;
  /** The document of a document batch; `''` for the user batch. */
  readonly documentId: string;
}

/**
 * The recipient's batch row for this key, if any (open or not: the caller compares), locked
 * until commit (PostgreSQL): two comments at once append to one batch one after the other.
 */
export async function findBatch(trx: WriteTx, key: BatchKey): Promise<NotificationBatchRow | undefined> {
  const row = await lockedForUpdate(
    trx,
    trx
      .selectFrom("notification_batches")
      .selectAll()
      .where("workspace_id", "=", key.workspaceId)
      .where("organization_id", "=", key.organizationId)
      .where("user_id", "=", key.userId)
      .where("document_id", "=", key.documentId),
  ).executeTakeFirst();
  return row ? { ...row, closes_at: Number(row.closes_at), events: Number(row.events) } : undefined;
}

/** Records the batch the key's next events join (replacing a closed one). */
export async function saveBatch(trx: WriteTx, row: NotificationBatchRow): Promise<void> {
  await trx
    .insertInto("notification_batches")
    .values(row)
    .onConflict((oc) =>
      oc.columns(["workspace_id", "organization_id", "user_id", "document_id"]).doUpdateSet((eb) => ({
        notification_id: eb.ref("excluded.notification_id"),
        closes_at: eb.ref("excluded.closes_at"),
        events: eb.ref("excluded.events"),
      })),
    )
    .execute();
}
