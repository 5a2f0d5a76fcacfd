import type { Kysely } from "kysely";

/**
 * Notification preferences and user-data erasure (docs/privacy.md):
 * - `notification_configs`: one row per (organization, user, document), `document_id` ""
 *   for the user's organization-wide default; the config is a JSON object of channels;
 * - `privacy_jobs` and `privacy_tasks`: a durable erasure job, one task per (user, kind);
 *   a task keeps its keyset cursor, so a crash resumes where the last batch committed;
 * - `activities_by_user`: erasure and export find a user's activities in one index range
 *   instead of a scan of the organization's log (docs/decisions.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("notification_configs")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("organization_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("document_id", "text", (c) => c.notNull())
    .addColumn("config", "text", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("notification_configs_pk", [
      "workspace_id",
      "organization_id",
      "user_id",
      "document_id",
    ])
    .execute();

  await db.schema
    .createTable("privacy_jobs")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("tasks_count", "integer", (c) => c.notNull())
    .addColumn("tasks_left", "integer", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_task_completed_at", "bigint")
    .addColumn("completed_at", "bigint")
    // The process running the job and until when its claim holds (renewed every batch).
    .addColumn("claim", "text")
    .addColumn("lease_until", "bigint")
    .addPrimaryKeyConstraint("privacy_jobs_pk", ["workspace_id", "id"])
    .execute();
  // The worker's claim query: unfinished jobs, oldest first (serves no request).
  await db.schema
    .createIndex("privacy_jobs_open")
    .on("privacy_jobs")
    .columns(["completed_at", "created_at"])
    .execute();

  await db.schema
    .createTable("privacy_tasks")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("job_id", "text", (c) => c.notNull())
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    // Set while the task is open, emptied when it completes: a finished job holds no user id.
    .addColumn("user_id", "text")
    // JSON array of organization ids, or null: every organization of the workspace.
    .addColumn("organization_ids", "text")
    // JSON keyset position of the last batch committed, or null: from the start.
    .addColumn("cursor", "text")
    .addColumn("erased", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("completed_at", "bigint")
    .addPrimaryKeyConstraint("privacy_tasks_pk", ["workspace_id", "job_id", "seq"])
    .execute();

  await db.schema
    .createIndex("activities_by_user")
    .on("activities")
    .columns(["workspace_id", "user_id", "organization_id", "id"])
    .execute();
}
