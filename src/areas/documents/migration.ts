import type { Ctx } from "../../context.js";
import { failedPrecondition, invalidArgument, notFound } from "../../errors.js";
import { readJob } from "../../jobs/store.js";
import { documentInUse, startMigration } from "../hierarchy/migrate.js";
import { lockOrganization, ORGANIZATION_NOT_FOUND } from "../hierarchy/organizations.js";
import { MIGRATE } from "../hierarchy/tombstones.js";
import type { GetMigrationStatusInput, MIGRATION_STATES, MigrateDocumentInput } from "./schemas.js";

/**
 * Starts moving every row of a document to `newDocumentId` (docs/compatibility.md, document
 * migration): always a durable job (hierarchy/migrate.ts), bounded batches, resumable; both
 * ids are refused by other operations until it completes. The new id must be unused, so
 * the moved rows never meet another document's.
 */
export async function migrateDocument(
  ctx: Ctx,
  input: MigrateDocumentInput,
): Promise<{ migrationId: string }> {
  const ws = ctx.workspace.id;
  const org = input.organizationId;
  if (input.newDocumentId === input.documentId)
    throw invalidArgument("data.newDocumentId must differ from data.documentId.", [
      { field: "data.newDocumentId", message: "Same as documentId." },
    ]);
  const migrationId = await ctx.write(async (trx) => {
    if ((await lockOrganization(trx, ws, org)) === null) throw notFound(ORGANIZATION_NOT_FOUND);
    if (await documentInUse(trx, { workspaceId: ws, organizationId: org }, input.newDocumentId))
      throw failedPrecondition(
        `Document ${input.newDocumentId} already exists or holds data; migrate to an unused id.`,
      );
    return startMigration(trx, ctx, { organizationId: org, from: input.documentId, to: input.newDocumentId });
  });
  // After the commit: a kick before it would find no job yet.
  ctx.jobs.kick();
  return { migrationId };
}

/** Where a migration stands, from its job (src/jobs); another workspace's id is not found. */
export async function migrationStatus(
  ctx: Ctx,
  input: GetMigrationStatusInput,
): Promise<{
  migrationId: string;
  status: (typeof MIGRATION_STATES)[number];
  tasksLeft: number;
  batches: number;
  rowsMoved: number;
}> {
  const job = await readJob(ctx.reader, ctx.workspace.id, MIGRATE, input.migrationId);
  if (!job) throw notFound("Migration not found.");
  const status = job.isDeleteCompleted ? "completed" : job.batches === 0 ? "pending" : "in_progress";
  return {
    migrationId: input.migrationId,
    status,
    tasksLeft: job.tasksLeft,
    batches: job.batches,
    rowsMoved: job.done,
  };
}
