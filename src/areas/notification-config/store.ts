import type { Readable, WriteTx } from "../../db/handles.js";
import type { NotificationConfigRow } from "../../db/tables.js";

/** The organization-wide default's `document_id`. */
export const ORGANIZATION_LEVEL = "";

export interface ConfigKey {
  readonly workspaceId: string;
  readonly organizationId: string;
}

/** Stored configs of users at the given levels (documents and/or ORGANIZATION_LEVEL), one query. */
export function readConfigs(
  db: Readable,
  key: ConfigKey,
  userIds: readonly string[],
  documentIds: readonly string[],
): Promise<Pick<NotificationConfigRow, "user_id" | "document_id" | "config">[]> {
  if (userIds.length === 0 || documentIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom("notification_configs")
    .select(["user_id", "document_id", "config"])
    .where("workspace_id", "=", key.workspaceId)
    .where("organization_id", "=", key.organizationId)
    .where("user_id", "in", [...userIds])
    .where("document_id", "in", [...documentIds])
    .execute();
}

/** Inserts or replaces configs (the caller merged them). */
export async function writeConfigs(trx: WriteTx, rows: readonly NotificationConfigRow[]): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .insertInto("notification_configs")
    .values([...rows])
    .onConflict((oc) =>
      oc.columns(["workspace_id", "organization_id", "user_id", "document_id"]).doUpdateSet((eb) => ({
        config: eb.ref("excluded.config"),
        updated_at: eb.ref("excluded.updated_at"),
      })),
    )
    .execute();
}
