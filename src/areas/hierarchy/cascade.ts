import { sql } from "kysely";
import type { Ctx } from "../../context.js";
import type { WriteTx } from "../../db/handles.js";
import { deleteDelta } from "../../quotas/by-verbs.js";
import { releaseUsage } from "../../quotas/check.js";
import { eraseRecordDeliveries } from "../../webhooks/history.js";
import { deleteGrantsOn } from "./grants.js";

/**
 * What goes with a deleted organization, folder or document (docs/contract.md "Folders", "Organizations", "Documents"),
 * as one list of per-table cascades: a table added later (users and memberships, comment
 * threads, notification configs …) joins by one line in FEATURE_CASCADES (data kept per
 * document) or ORGANIZATION_CASCADES (data kept per organization).
 *
 * Each cascade runs in the caller's transaction and holds at most CASCADE_BATCH rows in
 * memory: feature rows go in statements of that many (their ids are needed to erase
 * webhook content and account quotas); whole-organization sweeps are one statement that
 * returns nothing.
 */
export interface CascadeTarget {
  readonly workspaceId: string;
  readonly organizationId: string;
  /** Some documents of the organization (at most CASCADE_BATCH), or null: the whole organization. */
  readonly documentIds: readonly string[] | null;
  readonly now: number;
}

export type Cascade = (trx: WriteTx, ctx: Ctx, target: CascadeTarget) => Promise<void>;

/** Rows per statement, well under both dialects' parameter limits. */
export const CASCADE_BATCH = 500;

/**
 * Deletes the target's rows of a per-document feature table, CASCADE_BATCH at a time, and
 * hands each batch's keys and stored sizes to `then` (quota release, webhook content).
 */
async function deleteFeatureRows(
  trx: WriteTx,
  t: CascadeTarget,
  table: "activities" | "recordings" | "notifications",
  key: "id" | "annotation_id",
  then: (keys: string[], sizes: number[]) => Promise<void>,
): Promise<void> {
  const inDocuments = t.documentIds ? sql`and document_id in (${sql.join([...t.documentIds])})` : sql``;
  for (;;) {
    const { rows } = await sql<{ key: string; bytes: number }>`
      delete from ${sql.table(table)}
      where workspace_id = ${t.workspaceId} and organization_id = ${t.organizationId}
        and ${sql.ref(key)} in (
          select ${sql.ref(key)} from ${sql.table(table)}
          where workspace_id = ${t.workspaceId} and organization_id = ${t.organizationId} ${inDocuments}
          limit ${sql.lit(CASCADE_BATCH)})
      returning ${sql.ref(key)} as key, octet_length(record) as bytes`.execute(trx);
    if (rows.length === 0) return;
    await then(
      rows.map((row) => row.key),
      rows.map((row) => Number(row.bytes)),
    );
    if (rows.length < CASCADE_BATCH) return;
  }
}

/** Activities, accounted by their verbs (migration 0008), with their webhook content. */
const activities: Cascade = (trx, ctx, t) =>
  deleteFeatureRows(trx, t, "activities", "id", async (recordIds, sizes) => {
    await releaseUsage(trx, ctx, deleteDelta(sizes));
    await eraseRecordDeliveries(trx, { ...t, kind: "activity", recordIds });
  });

/** Recordings (counted by triggers, migration 0007), with their webhook content. */
const recordings: Cascade = (trx, _ctx, t) =>
  deleteFeatureRows(trx, t, "recordings", "annotation_id", (recordIds) =>
    eraseRecordDeliveries(trx, { ...t, kind: "recording", recordIds }),
  );

/** Notifications and their inbox rows, accounted by their verbs (migration 0008). */
const notifications: Cascade = (trx, ctx, t) =>
  deleteFeatureRows(trx, t, "notifications", "id", async (ids, sizes) => {
    await trx
      .deleteFrom("notification_recipients")
      .where("workspace_id", "=", t.workspaceId)
      .where("organization_id", "=", t.organizationId)
      .where("notification_id", "in", ids)
      .execute();
    await releaseUsage(trx, ctx, deleteDelta(sizes));
  });

/** Comment threads of the documents (or the organization) with the users they index; counted by triggers (0012). */
const comments: Cascade = async (trx, _ctx, t) => {
  const threadsOf = () => {
    let pick = trx
      .selectFrom("comment_annotations")
      .select("annotation_id")
      .where("workspace_id", "=", t.workspaceId)
      .where("organization_id", "=", t.organizationId);
    if (t.documentIds) pick = pick.where("document_id", "in", [...t.documentIds]);
    return pick;
  };
  await trx
    .deleteFrom("comment_annotation_users")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId)
    .where("annotation_id", "in", threadsOf())
    .execute();
  let gone = trx
    .deleteFrom("comment_annotations")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId);
  if (t.documentIds) gone = gone.where("document_id", "in", [...t.documentIds]);
  await gone.execute();
  let numbers = trx
    .deleteFrom("comment_sequences")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId);
  if (t.documentIds) numbers = numbers.where("document_id", "in", [...t.documentIds]);
  await numbers.execute();
};

/** Notification preferences of the documents, or every preference in the organization. */
const notificationConfigs: Cascade = async (trx, _ctx, t) => {
  let query = trx
    .deleteFrom("notification_configs")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId);
  if (t.documentIds) query = query.where("document_id", "in", [...t.documentIds]);
  await query.execute();
};

/** Document memberships of the documents, or every profile and membership of the organization (docs/contract.md "Users"). */
const users: Cascade = async (trx, _ctx, t) => {
  let memberships = trx
    .deleteFrom("user_memberships")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId);
  if (t.documentIds)
    memberships = memberships.where("level", "=", "document").where("level_id", "in", [...t.documentIds]);
  await memberships.execute();
  if (t.documentIds) return;
  await trx
    .deleteFrom("user_profiles")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId)
    .execute();
};

/** Grants on the documents, or every grant of the organization (organization, folder and document level). */
const grants: Cascade = async (trx, _ctx, t) => {
  if (t.documentIds) {
    await deleteGrantsOn(trx, t.workspaceId, t.organizationId, "document", t.documentIds);
    return;
  }
  await trx
    .deleteFrom("access_grants")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId)
    .execute();
};

const documents: Cascade = async (trx, _ctx, t) => {
  let query = trx
    .deleteFrom("documents")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId);
  if (t.documentIds) query = query.where("id", "in", [...t.documentIds]);
  await query.execute();
};

/** Only for whole organizations: a folder delete removes its subtree itself (folders/subtree-store.ts). */
const folders: Cascade = async (trx, _ctx, t) => {
  if (t.documentIds) return;
  await trx
    .deleteFrom("folders")
    .where("workspace_id", "=", t.workspaceId)
    .where("organization_id", "=", t.organizationId)
    .execute();
};

/** Data kept per document: it goes with each deleted document, and with the organization. */
export const FEATURE_CASCADES: readonly Cascade[] = [
  activities,
  recordings,
  notifications,
  comments,
  notificationConfigs,
];

/** Everything a deleted document takes with it (docs/contract.md "Documents"): feature data, grants (and memberships), the record. */
export const DOCUMENT_CASCADES: readonly Cascade[] = [...FEATURE_CASCADES, grants, users, documents];

/**
 * Everything under a deleted organization (docs/contract.md "Organizations"), the organization row last
 * (organizations/store.ts). Feature data is swept for the whole organization, so data of
 * documents that never had a record goes too.
 */
export const ORGANIZATION_CASCADES: readonly Cascade[] = [
  ...FEATURE_CASCADES,
  grants,
  users,
  documents,
  folders,
];

/** Runs `cascades` for `target` in order. */
export async function runCascades(
  trx: WriteTx,
  ctx: Ctx,
  cascades: readonly Cascade[],
  target: CascadeTarget,
): Promise<void> {
  for (const cascade of cascades) await cascade(trx, ctx, target);
}

/** Deletes documents by id with everything they hold, CASCADE_BATCH at a time. */
export async function deleteDocumentsCascading(
  trx: WriteTx,
  ctx: Ctx,
  scope: { workspaceId: string; organizationId: string; now: number },
  documentIds: readonly string[],
): Promise<void> {
  for (let i = 0; i < documentIds.length; i += CASCADE_BATCH) {
    const chunk = documentIds.slice(i, i + CASCADE_BATCH);
    await runCascades(trx, ctx, DOCUMENT_CASCADES, { ...scope, documentIds: chunk });
  }
}

/**
 * Deletes every document placed in `folderIds` (a deleted subtree) with everything it
 * holds (docs/contract.md "Folders"): reads CASCADE_BATCH document ids at a time, so memory stays
 * bounded however many documents the folders hold; returns how many went.
 */
export async function deleteDocumentsInFolders(
  trx: WriteTx,
  ctx: Ctx,
  scope: { workspaceId: string; organizationId: string; now: number },
  folderIds: readonly string[],
): Promise<number> {
  let count = 0;
  for (let i = 0; i < folderIds.length; i += CASCADE_BATCH) {
    const folders = folderIds.slice(i, i + CASCADE_BATCH);
    for (;;) {
      const rows = await trx
        .selectFrom("documents")
        .select("id")
        .where("workspace_id", "=", scope.workspaceId)
        .where("organization_id", "=", scope.organizationId)
        .where("folder_id", "in", folders)
        .limit(CASCADE_BATCH)
        .execute();
      if (rows.length === 0) break;
      count += rows.length;
      await deleteDocumentsCascading(
        trx,
        ctx,
        scope,
        rows.map((row) => row.id),
      );
    }
  }
  return count;
}
