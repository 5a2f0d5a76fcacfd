import type { Kysely } from "kysely";

/**
 * `Idempotency-Key` (README "Retries"; src/idempotency/keys.ts): one row per key a workspace
 * sent with a write that committed, written in the same transaction as that write's first
 * statement. `fingerprint` is the operation and body hash the key was first used with;
 * `answer` the Outcome answered (JSON), null until the request's last write is durable.
 * Rows expire after a day (`created_at`, swept in bounded batches).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("idempotency_keys")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("fingerprint", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("answer", "text")
    .addPrimaryKeyConstraint("idempotency_keys_pk", ["workspace_id", "key"])
    .execute();
  // The retention sweep: oldest first (serves no request).
  await db.schema.createIndex("idempotency_keys_age").on("idempotency_keys").column("created_at").execute();
}
