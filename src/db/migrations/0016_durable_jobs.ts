import { type Kysely, sql } from "kysely";

/**
 * One durable-job runner for every job of unknown size (src/jobs, docs/decisions.md): the
 * erasure tables of migration 0013 become the generic `jobs` and `job_tasks`. A job has a
 * `type` (erasure, delete); a task names its `kind` (the step the type runs) and a JSON
 * `subject` (what the step works on: an erasure's user and organizations, a sweep's
 * organization and documents), emptied when the task completes so a finished job holds no
 * user id. Open erasure tasks keep their place: their user and organizations move into
 * the subject.
 *
 * `tombstones`: an organization (document_id "") or document whose delete committed and
 * whose rows a job is still sweeping. Operations naming it are refused until the job ends
 * (src/areas/hierarchy/tombstones.ts), so nothing written under the same id is swept.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table privacy_jobs rename to jobs`.execute(db);
  await sql`alter table privacy_tasks rename to job_tasks`.execute(db);
  await db.schema
    .alterTable("jobs")
    .addColumn("type", "text", (c) => c.notNull().defaultTo("erasure"))
    .execute();
  // Batches committed: with each task's `done`, the job's progress shows every batch stayed bounded.
  await db.schema
    .alterTable("jobs")
    .addColumn("batches", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("job_tasks").addColumn("subject", "text").execute();

  const open = await sql<{
    workspace_id: string;
    job_id: string;
    seq: number;
    user_id: string;
    organization_ids: string | null;
  }>`
    select workspace_id, job_id, seq, user_id, organization_ids from job_tasks
    where completed_at is null and user_id is not null`.execute(db);
  for (const row of open.rows) {
    const subject = JSON.stringify({
      userId: row.user_id,
      organizationIds: row.organization_ids === null ? null : JSON.parse(row.organization_ids),
    });
    await sql`update job_tasks set subject = ${subject}
      where workspace_id = ${row.workspace_id} and job_id = ${row.job_id} and seq = ${row.seq}`.execute(db);
  }
  await db.schema.alterTable("job_tasks").dropColumn("user_id").execute();
  await db.schema.alterTable("job_tasks").dropColumn("organization_ids").execute();
  await sql`alter table job_tasks rename column erased to done`.execute(db);

  await db.schema
    .createTable("tombstones")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    // "" for the whole organization.
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("job_id", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("tombstones_pk", ["workspace_id", "organization_id", "document_id"])
    .execute();
}
