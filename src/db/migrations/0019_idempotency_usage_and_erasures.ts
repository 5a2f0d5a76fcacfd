import { type Kysely, PostgresAdapter, sql } from "kysely";
import { usageTriggers } from "./usage-triggers.js";

/**
 * Two bounds of the write path (docs/decisions.md "Idempotency-Key", "Erasure closes the window"):
 *
 * - `idempotency_keys` is counted like the other tables a tenant grows (src/quotas/registry.ts):
 *   one record per key and the stored answer's bytes. An answer is never null from here on
 *   (the key and its answer commit together); the few rows an older version left without
 *   an answer become `""`, so the triggers' byte arithmetic never meets a null.
 * - `erasing_users`: one row per user of an open erasure job, written with the job and
 *   removed in the transaction that completes it. While it stands, writes whose data names
 *   the user are refused (src/privacy/guard.ts), so nothing new about them lands behind
 *   the job's scans.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  await sql`update idempotency_keys set answer = '' where answer is null`.execute(db);
  for (const statement of usageTriggers(postgres, "idempotency_keys", "answer")) {
    await sql.raw(statement).execute(db);
  }
  await sql`insert into workspace_usage as u (workspace_id, shard, records, bytes)
    select workspace_id, 0, count(*), coalesce(sum(octet_length(answer)), 0)
    from idempotency_keys where true group by workspace_id
    on conflict (workspace_id, shard) do update
    set records = u.records + excluded.records, bytes = u.bytes + excluded.bytes`.execute(db);

  await db.schema
    .createTable("erasing_users")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("job_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("erasing_users_pk", ["workspace_id", "user_id", "job_id"])
    .execute();
}
