import { type Kysely, sql } from "kysely";

/**
 * `job_tasks_open_by_kind`: the open tasks of one kind in a workspace, in job order. An
 * erasure walks the open fan-out tasks that still owe inbox rows to the user
 * (src/privacy/kinds/notifications.ts); by the primary key alone that walk also passed
 * every finished task of the workspace, which erasure jobs keep (their status is read back).
 * Partial, so finished tasks cost the index nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index job_tasks_open_by_kind on job_tasks (workspace_id, kind, job_id, seq)
    where completed_at is null`.execute(db);
}
