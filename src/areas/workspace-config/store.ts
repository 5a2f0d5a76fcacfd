import type { Readable, WriteTx } from "../../db/handles.js";
import { lockedForUpdate } from "../../db/transactions.js";

/** The two stored configurations of a workspace (JSON text, null when never set). */
export interface StoredConfigs {
  readonly activity: string | null;
  readonly apikey: string | null;
}

/** One indexed read; a workspace that never configured anything has no row. */
export async function readConfigs(db: Readable, workspaceId: string): Promise<StoredConfigs> {
  const row = await db
    .selectFrom("workspace_configs")
    .select(["activity_config", "apikey_config"])
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  return { activity: row?.activity_config ?? null, apikey: row?.apikey_config ?? null };
}

/**
 * The configurations inside a write, locked until commit (PostgreSQL; SQLite has one writer):
 * concurrent updates merge one after the other. The row is made first when missing, with
 * both configurations null (still "never set"), so there is a row to lock.
 */
export async function lockConfigs(trx: WriteTx, workspaceId: string, now: number): Promise<StoredConfigs> {
  await trx
    .insertInto("workspace_configs")
    .values({ workspace_id: workspaceId, activity_config: null, apikey_config: null, updated_at: now })
    .onConflict((oc) => oc.column("workspace_id").doNothing())
    .execute();
  const row = await lockedForUpdate(
    trx,
    trx
      .selectFrom("workspace_configs")
      .select(["activity_config", "apikey_config"])
      .where("workspace_id", "=", workspaceId),
  ).executeTakeFirstOrThrow();
  return { activity: row.activity_config, apikey: row.apikey_config };
}

/** Sets one configuration, keeping the other. */
export async function writeConfig(
  trx: WriteTx,
  workspaceId: string,
  which: "activity_config" | "apikey_config",
  text: string,
  now: number,
): Promise<void> {
  await trx
    .insertInto("workspace_configs")
    .values({
      workspace_id: workspaceId,
      activity_config: which === "activity_config" ? text : null,
      apikey_config: which === "apikey_config" ? text : null,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.column("workspace_id").doUpdateSet((eb) => ({
        [which]: eb.ref(`excluded.${which}`),
        updated_at: eb.ref("excluded.updated_at"),
      })),
    )
    .execute();
}
