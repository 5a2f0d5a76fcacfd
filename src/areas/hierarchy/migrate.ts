import { type RawBuilder, sql } from "kysely";
import type { Ctx } from "../../context.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import { lockedForUpdate } from "../../db/transactions.js";
import { createJob } from "../../jobs/store.js";
import type { JobType } from "../../jobs/types.js";
import { rewriteDelta } from "../../quotas/by-verbs.js";
import { type RecordKind, recordsRewritten } from "../../records/effects.js";
import { someInboxRows } from "../notifications/store.js";
import { bury, MIGRATE, unbury } from "./tombstones.js";

/** What a migration moves: stored as each task's subject. */
interface MoveScope {
  readonly workspaceId: string;
  readonly organizationId: string;
  /** The document id the rows leave. */
  readonly from: string;
  /** The id they move to. */
  readonly to: string;
}

/**
 * One kind of row a document holds. A batch moves at most `batch` rows to the new id and
 * answers how many; fewer than `batch`: none is left. Moved rows leave the old id, so each
 * batch starts from the front again and a batch re-run after a crash finds them gone.
 */
interface MoveStep {
  readonly name: string;
  run(trx: WriteTx, s: MoveScope, batch: number): Promise<number>;
}

/** A stored record with its `metadata.documentId` (every record kind keeps one) pointing at the new id. */
function movedRecord(text: string, s: MoveScope): string {
  const record = JSON.parse(text) as { metadata?: { documentId?: unknown } };
  if (record.metadata && record.metadata.documentId === s.from) record.metadata.documentId = s.to;
  return JSON.stringify(record);
}

/**
 * Moves a batch of a record table's rows: their `document_id` and the document id inside
 * the record; the usage of verb-accounted tables follows the change in size
 * (records/effects.ts), trigger-counted ones count themselves.
 */
async function moveRecords(
  trx: WriteTx,
  s: MoveScope,
  table: "activities" | "recordings" | "notifications" | "comment_annotations",
  key: "id" | "annotation_id",
  kind: RecordKind,
  where: RawBuilder<unknown>,
  batch: number,
): Promise<number> {
  const { rows } = await sql<{ key: string; record: string }>`
    select ${sql.ref(key)} as key, record from ${sql.table(table)}
    where workspace_id = ${s.workspaceId} and organization_id = ${s.organizationId}
      and document_id = ${s.from} ${where}
    limit ${sql.lit(batch)}`.execute(trx);
  if (rows.length === 0) return 0;
  const after = rows.map((row) => movedRecord(row.record, s));
  const records = sql.join(
    rows.map((row, i) => sql`when ${row.key} then ${after[i]}`),
    sql` `,
  );
  const ids = rows.map((row) => row.key);
  await sql`
    update ${sql.table(table)} set document_id = ${s.to}, record = case ${sql.ref(key)} ${records} end
    where workspace_id = ${s.workspaceId} and organization_id = ${s.organizationId}
      and ${sql.ref(key)} in (${sql.join(ids)})`.execute(trx);
  await recordsRewritten(trx, {
    workspaceId: s.workspaceId,
    kind,
    usage: rewriteDelta(
      rows.map((row) => row.record),
      after,
    ),
  });
  return rows.length;
}

const recordMove = (
  name: string,
  table: "activities" | "recordings" | "comment_annotations",
  key: "id" | "annotation_id",
  kind: RecordKind,
): MoveStep => ({
  name,
  run: (trx, s, batch) => moveRecords(trx, s, table, key, kind, sql``, batch),
});

/**
 * Notifications with their inbox rows, which carry the document id too (up to 2 000 a
 * notification): a batch picks up to `batch` notifications and moves at most `batch` of
 * their inbox rows; only a batch that finds fewer (theirs have all moved) moves the
 * notifications picked, so no transaction grows with the fan-out.
 */
const notificationsMove: MoveStep = {
  name: "notifications",
  async run(trx, s, batch) {
    // Locked: a fan-out slice writing their inbox rows (notifications/fan-out.ts) runs before or after this batch, not beside it.
    const rows = await lockedForUpdate(
      trx,
      trx
        .selectFrom("notifications")
        .select("id")
        .where("workspace_id", "=", s.workspaceId)
        .where("organization_id", "=", s.organizationId)
        .where("document_id", "=", s.from)
        .limit(batch),
    ).execute();
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.id);
    const inbox = await someInboxRows(
      trx,
      s,
      ids,
      { delete: false, column: "document_id", from: s.from, to: s.to },
      batch,
    );
    if (inbox === batch) return batch;
    const moved = await moveRecords(
      trx,
      s,
      "notifications",
      "id",
      "notification",
      sql`and id in (${sql.join(ids)})`,
      batch,
    );
    // Fewer than `batch` only when the pick was the last of the document's notifications.
    return rows.length === batch ? batch : moved;
  },
};

/** Rows keyed by the document id itself, moved `batch` at a time by the users they belong to. */
const keyedMove = (
  name: string,
  table: "notification_configs" | "access_grants" | "user_memberships",
  column: "document_id" | "resource_id" | "level_id",
  level: readonly [column: "resource_type" | "level", value: "document"] | null,
): MoveStep => ({
  name,
  async run(trx, s, batch) {
    const levelFilter = level ? sql`and ${sql.ref(level[0])} = ${level[1]}` : sql``;
    const { rows } = await sql<{ user_id: string }>`
      select user_id from ${sql.table(table)}
      where workspace_id = ${s.workspaceId} and organization_id = ${s.organizationId}
        and ${sql.ref(column)} = ${s.from} ${levelFilter}
      limit ${sql.lit(batch)}`.execute(trx);
    if (rows.length === 0) return 0;
    const users = sql.join(rows.map((row) => row.user_id));
    const where = (id: string) =>
      sql`workspace_id = ${s.workspaceId} and organization_id = ${s.organizationId}
        and ${sql.ref(column)} = ${id} ${levelFilter} and user_id in (${users})`;
    // The new id is unused when the migration starts (documentInUse); a row written under it
    // since (none can be: tombstones.ts) would give way to the moved one rather than block it.
    await sql`delete from ${sql.table(table)} where ${where(s.to)}`.execute(trx);
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${s.to} where ${where(s.from)}`.execute(
      trx,
    );
    return rows.length;
  },
});

/** A row per document: its record, its annotation counter. */
const singleMove = (
  name: string,
  table: "documents" | "comment_sequences",
  column: "id" | "document_id",
): MoveStep => ({
  name,
  async run(trx, s) {
    const { numAffectedRows } = await sql`
      update ${sql.table(table)} set ${sql.ref(column)} = ${s.to}
      where workspace_id = ${s.workspaceId} and organization_id = ${s.organizationId}
        and ${sql.ref(column)} = ${s.from}`.execute(trx);
    return Number(numAffectedRows ?? 0);
  },
});

/** CRDT stores, `batch` editors at a time (their ids, hence their webhook events, stay). */
const crdtMove: MoveStep = {
  name: "crdt",
  async run(trx, s, batch) {
    const where = (id: string) =>
      sql`workspace_id = ${s.workspaceId} and organization_id = ${s.organizationId} and document_id = ${id}`;
    const { rows } = await sql<{ editor_id: string }>`
      select editor_id from crdt_documents where ${where(s.from)} limit ${sql.lit(batch)}`.execute(trx);
    if (rows.length === 0) return 0;
    await sql`update crdt_documents set document_id = ${s.to}
      where ${where(s.from)} and editor_id in (${sql.join(rows.map((row) => row.editor_id))})`.execute(trx);
    return rows.length;
  },
};

/** Everything a document holds, in the order a migration moves it (a table added later joins by one line). */
export const MOVE_STEPS: readonly MoveStep[] = [
  singleMove("document", "documents", "id"),
  recordMove("activities", "activities", "id", "activity"),
  recordMove("recordings", "recordings", "annotation_id", "recording"),
  notificationsMove,
  recordMove("comments", "comment_annotations", "annotation_id", "comment"),
  singleMove("comment-sequence", "comment_sequences", "document_id"),
  keyedMove("notification-configs", "notification_configs", "document_id", null),
  keyedMove("grants", "access_grants", "resource_id", ["resource_type", "document"]),
  keyedMove("memberships", "user_memberships", "level_id", ["level", "document"]),
  crdtMove,
];

/**
 * Whether a document id holds anything (a record, data of any kind, grants): a migration's
 * new id must not, so the moved rows never meet rows of another document. One indexed
 * read per table. Notification preferences are not looked up (no index by document); the
 * moved ones replace any the new id has.
 */
export async function documentInUse(
  db: Readable,
  t: { workspaceId: string; organizationId: string },
  documentId: string,
): Promise<boolean> {
  const probes = [
    sql`select 1 from documents where workspace_id = ${t.workspaceId} and organization_id = ${t.organizationId} and id = ${documentId}`,
    ...(
      [
        "activities",
        "recordings",
        "notifications",
        "comment_annotations",
        "comment_sequences",
        "crdt_documents",
      ] as const
    ).map(
      (table) =>
        sql`select 1 from ${sql.table(table)} where workspace_id = ${t.workspaceId}
          and organization_id = ${t.organizationId} and document_id = ${documentId}`,
    ),
    sql`select 1 from access_grants where workspace_id = ${t.workspaceId} and organization_id = ${t.organizationId}
      and resource_type = 'document' and resource_id = ${documentId}`,
    sql`select 1 from user_memberships where workspace_id = ${t.workspaceId} and organization_id = ${t.organizationId}
      and level = 'document' and level_id = ${documentId}`,
  ];
  for (const probe of probes) {
    const { rows } = await sql`${probe} limit 1`.execute(db);
    if (rows.length > 0) return true;
  }
  return false;
}

/**
 * Starts moving every row of a document to a new id, in the request's transaction: buries
 * both ids (tombstones.ts: operations naming either are refused until the job is done, so
 * nothing is written under the old id behind the move, nor under the new one beside it) and
 * writes the job, one task per kind of row. Returns the job id; the caller kicks the runner
 * once its transaction is durable.
 */
export async function startMigration(
  trx: WriteTx,
  ctx: Ctx,
  move: { organizationId: string; from: string; to: string },
): Promise<string> {
  const id = ctx.ids();
  const now = ctx.clock.now();
  const subject: MoveScope = { workspaceId: ctx.workspace.id, ...move };
  await bury(
    trx,
    {
      workspaceId: subject.workspaceId,
      organizationId: move.organizationId,
      documentIds: [move.from, move.to],
    },
    id,
    now,
  );
  await createJob(trx, {
    workspaceId: subject.workspaceId,
    id,
    type: MIGRATE,
    tasks: MOVE_STEPS.map((step) => ({ kind: step.name, subject })),
    now,
  });
  return id;
}

/** Document migrations (src/jobs): each task's move one batch at a time; when all are done, both ids are free. */
export const migrateJob: JobType = {
  name: MIGRATE,
  async runBatch(tx, kind, scope, _after, batch) {
    const step = MOVE_STEPS.find((s) => s.name === kind);
    const subject = scope.subject as MoveScope | null;
    if (!step || subject === null) return { done: 0, next: null };
    const done = await step.run(tx, { ...subject, workspaceId: scope.workspaceId }, batch);
    return { done, next: done < batch ? null : [] };
  },
  finish: (tx, job) => unbury(tx, job.workspaceId, job.id),
};
