import { type RawBuilder, sql } from "kysely";
import type { WriteTx } from "../../db/handles.js";
import { lockedForUpdate } from "../../db/transactions.js";
import { deleteDelta } from "../../quotas/by-verbs.js";
import { type RecordKind, recordsChanged } from "../../records/effects.js";
import { someInboxRows } from "../notifications/store.js";

/**
 * What goes with a deleted organization or document (docs/contract.md "Organizations", "Documents"), as one list
 * of per-table steps: a table added later joins by one line in FEATURE_STEPS (data kept
 * per document) or ORGANIZATION_STEPS (data kept per organization).
 *
 * A step deletes at most `batch` rows of its table for the target (with what goes with
 * those rows: quota usage of verb-accounted tables, webhook content, inbox rows) and
 * answers how many it deleted; fewer than `batch`: the step is done. So a delete job
 * (sweep.ts) runs each step one bounded transaction at a time, organizations', documents'
 * and folders' deletes alike.
 */
export interface SweepTarget {
  readonly workspaceId: string;
  readonly organizationId: string;
  /** Some documents of the organization, or null: the whole organization. */
  readonly documentIds: readonly string[] | null;
  readonly now: number;
}

export interface SweepStep {
  /** Stable: stored as the task kind of delete jobs. */
  readonly name: string;
  run(trx: WriteTx, target: SweepTarget, batch: number): Promise<number>;
}

/** `and <column> in (…documentIds)`, or nothing for a whole organization. */
function inDocuments(t: SweepTarget, column: string): RawBuilder<unknown> {
  return t.documentIds ? sql`and ${sql.ref(column)} in (${sql.join([...t.documentIds])})` : sql``;
}

/**
 * Deletes up to `batch` of the target's rows of `table` (keyed by workspace, organization
 * and `keys`) matching `where`, returning `returning` of each deleted row.
 */
async function deleteSome<R>(
  trx: WriteTx,
  t: SweepTarget,
  table: string,
  keys: readonly string[],
  where: RawBuilder<unknown>,
  batch: number,
  returning: RawBuilder<unknown> = sql`1 as one`,
): Promise<R[]> {
  const key = sql.join(["workspace_id", "organization_id", ...keys].map((c) => sql.ref(c)));
  const { rows } = await sql<R>`
    delete from ${sql.table(table)} where (${key}) in (
      select ${key} from ${sql.table(table)}
      where workspace_id = ${t.workspaceId} and organization_id = ${t.organizationId} ${where}
      limit ${sql.lit(batch)})
    returning ${returning}`.execute(trx);
  return rows;
}

/** A step that deletes rows and needs nothing else done. */
const plain = (
  name: string,
  table: string,
  keys: readonly string[],
  where: (t: SweepTarget) => RawBuilder<unknown>,
): SweepStep => ({
  name,
  run: async (trx, t, batch) => (await deleteSome(trx, t, table, keys, where(t), batch)).length,
});

/**
 * Deletes up to `batch` of the target's stored records of `table` matching `where`; each
 * batch's ids and sizes go to the one place that knows what else a deleted record takes
 * with it (usage, webhook content: records/effects.ts). Returns how many went.
 */
async function deleteRecords(
  trx: WriteTx,
  t: SweepTarget,
  table: "activities" | "recordings" | "notifications",
  key: "id" | "annotation_id",
  kind: RecordKind,
  where: RawBuilder<unknown>,
  batch: number,
): Promise<number> {
  const rows = await deleteSome<{ key: string; bytes: number }>(
    trx,
    t,
    table,
    [key],
    where,
    batch,
    sql`${sql.ref(key)} as key, octet_length(record) as bytes`,
  );
  const usage = deleteDelta(rows.map((r) => Number(r.bytes)));
  await recordsChanged(trx, { ...t, kind, recordIds: rows.map((r) => r.key), usage });
  return rows.length;
}

/** A step over a table of stored records of the target's documents. */
const recordStep = (
  name: string,
  table: "activities" | "recordings",
  key: "id" | "annotation_id",
  kind: RecordKind,
): SweepStep => ({
  name,
  run: (trx, t, batch) => deleteRecords(trx, t, table, key, kind, inDocuments(t, "document_id"), batch),
});

const activities = recordStep("activities", "activities", "id", "activity");
const recordings = recordStep("recordings", "recordings", "annotation_id", "recording");

/**
 * Notifications with their inbox rows, up to 2 000 each (one per recipient): a batch picks
 * up to `batch` notifications and deletes at most `batch` of their inbox rows; only a batch
 * that finds fewer (theirs are all gone) deletes notifications, so no transaction grows with
 * the fan-out. The notifications deleted are the ones picked, whose rows are gone.
 */
const notifications: SweepStep = {
  name: "notifications",
  async run(trx, t, batch) {
    let pick = trx
      .selectFrom("notifications")
      .select("id")
      .where("workspace_id", "=", t.workspaceId)
      .where("organization_id", "=", t.organizationId);
    if (t.documentIds) pick = pick.where("document_id", "in", [...t.documentIds]);
    // Locked: a fan-out slice writing their inbox rows (notifications/fan-out.ts) runs before or after this batch, not beside it.
    const ids = (await lockedForUpdate(trx, pick.limit(batch)).execute()).map((row) => row.id);
    if (ids.length === 0) return 0;
    if ((await someInboxRows(trx, t, ids, { delete: true }, batch)) === batch) return batch;
    const picked = sql`and id in (${sql.join(ids)})`;
    const deleted = await deleteRecords(trx, t, "notifications", "id", "notification", picked, batch);
    // Fewer than `batch` only when the pick was the last of the target's notifications.
    return ids.length === batch ? batch : deleted;
  },
};

/** Comment threads with the users they index (counted by triggers, migration 0012). */
const comments: SweepStep = {
  name: "comments",
  async run(trx, t, batch) {
    let pick = trx
      .selectFrom("comment_annotations")
      .select("annotation_id")
      .where("workspace_id", "=", t.workspaceId)
      .where("organization_id", "=", t.organizationId);
    if (t.documentIds) pick = pick.where("document_id", "in", [...t.documentIds]);
    const ids = (await pick.limit(batch).execute()).map((row) => row.annotation_id);
    if (ids.length === 0) return 0;
    const scoped = <T extends "comment_annotation_users" | "comment_annotations">(table: T) =>
      trx
        .deleteFrom(table as "comment_annotations")
        .where("workspace_id", "=", t.workspaceId)
        .where("organization_id", "=", t.organizationId)
        .where("annotation_id", "in", ids);
    await scoped("comment_annotation_users").execute();
    await scoped("comment_annotations").execute();
    await recordsChanged(trx, { ...t, kind: "comment", recordIds: ids, usage: null });
    return ids.length;
  },
};

/** CRDT stores, with the content their webhook events carried (records/effects.ts). */
const crdtStores: SweepStep = {
  name: "crdt",
  async run(trx, t, batch) {
    const rows = await deleteSome<{ key: string }>(
      trx,
      t,
      "crdt_documents",
      ["document_id", "editor_id"],
      inDocuments(t, "document_id"),
      batch,
      sql`id as key`,
    );
    const ids = rows.map((r) => r.key);
    if (ids.length > 0) await recordsChanged(trx, { ...t, kind: "crdt", recordIds: ids, usage: null });
    return rows.length;
  },
};

/** Data kept per document: it goes with each deleted document, and with the organization. */
export const FEATURE_STEPS: readonly SweepStep[] = [
  activities,
  recordings,
  notifications,
  comments,
  plain("comment-sequences", "comment_sequences", ["document_id"], (t) => inDocuments(t, "document_id")),
  plain("notification-configs", "notification_configs", ["user_id", "document_id"], (t) =>
    inDocuments(t, "document_id"),
  ),
  plain("notification-batches", "notification_batches", ["user_id", "document_id"], (t) =>
    inDocuments(t, "document_id"),
  ),
  crdtStores,
];

const documentLevel = (t: SweepTarget, type: string, ids: string) =>
  t.documentIds
    ? sql`and ${sql.ref(type)} = 'document' and ${sql.ref(ids)} in (${sql.join([...t.documentIds])})`
    : sql``;

/** Grants and memberships on the documents, or every one of the organization (all levels). */
const ACCESS_STEPS: readonly SweepStep[] = [
  plain("grants", "access_grants", ["resource_type", "resource_id", "user_id"], (t) =>
    documentLevel(t, "resource_type", "resource_id"),
  ),
  plain("memberships", "user_memberships", ["level", "level_id", "user_id"], (t) =>
    documentLevel(t, "level", "level_id"),
  ),
];

/** Everything a deleted document takes with it (docs/contract.md "Documents"); its record goes with the request. */
export const DOCUMENT_STEPS: readonly SweepStep[] = [...FEATURE_STEPS, ...ACCESS_STEPS];

/**
 * Everything under a deleted organization; its record goes with the request. Feature data
 * is swept for the whole organization, so data of documents that never had a record goes too.
 */
export const ORGANIZATION_STEPS: readonly SweepStep[] = [
  ...DOCUMENT_STEPS,
  plain("profiles", "user_profiles", ["user_id"], () => sql``),
  plain("group-members", "user_group_members", ["group_id", "user_id"], () => sql``),
  plain("groups", "user_groups", ["group_id"], () => sql``),
  plain("documents", "documents", ["id"], () => sql``),
  plain("folders", "folders", ["folder_id"], () => sql``),
];

export function stepNamed(name: string): SweepStep | undefined {
  return ORGANIZATION_STEPS.find((step) => step.name === name);
}
