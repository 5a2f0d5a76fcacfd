import { sql } from "kysely";
import { FAN_OUT } from "../../areas/notifications/fan-out.js";
import type { WriteTx } from "../../db/handles.js";
import { recordsChanged } from "../../records/effects.js";
import { deleteUserRows } from "../delete-rows.js";
import type { ErasureScope, PersonalDataKind, Position } from "../kind.js";
import {
  deleteScanned,
  exportScanned,
  type RecordTable,
  rewriteScanned,
  type ScannedRow,
  scanRecords,
} from "../scan.js";
import { mentions, scrub } from "../scrub.js";

const TABLE: RecordTable = { table: "notifications", key: "id" };

const actorOf = (record: unknown): unknown =>
  (record as { actionUser?: { userId?: unknown } }).actionUser?.userId;

/**
 * Notifications the user triggered (their `actionUser`) are deleted whole; in the others
 * they are dropped as a recipient (record and inbox row). Walk: the notifications naming
 * the user (step 0), then any inbox row of theirs left (step 1), then their id in the lists
 * of open fan-out jobs (step 2).
 */
export const notifications: PersonalDataKind = {
  name: "notifications",
  exportKey: "notifications",
  export: (read, scope, after, limit) =>
    exportScanned(read, TABLE, scope, after, limit, (r) => mentions(r, scope.userId)),
  async erase(tx, scope, after, batch) {
    if (after === null || after[0] === "records") {
      const from = after === null ? null : after.slice(1);
      const step = await scanRecords(tx, TABLE, scope, from && from.length > 0 ? from : null, batch);
      const erased = await eraseRecords(tx, scope, step.rows);
      return { erased, next: step.next === null ? ["recipients"] : ["records", ...step.next] };
    }
    if (after[0] === "recipients") return eraseInboxRows(tx, scope, batch);
    return eraseOwedRows(tx, scope, after.slice(1), batch);
  },
};

async function eraseRecords(tx: WriteTx, scope: ErasureScope, rows: readonly ScannedRow[]): Promise<number> {
  let erased = 0;
  // What this batch removes or rewrites, per organization (records/effects.ts accounts it).
  const changes = new Map<string, { ids: string[]; records: number; bytes: number }>();
  for (const row of rows) {
    const delta = changes.get(row.organization_id) ?? { ids: [], records: 0, bytes: 0 };
    changes.set(row.organization_id, delta);
    delta.ids.push(row.key);
    const record = JSON.parse(row.record) as unknown;
    if (actorOf(record) === scope.userId) {
      // The notification first: a fan-out slice writing its inbox rows locks it (notifications/fan-out.ts).
      await deleteScanned(tx, TABLE, scope.workspaceId, row);
      await tx
        .deleteFrom("notification_recipients")
        .where("workspace_id", "=", scope.workspaceId)
        .where("organization_id", "=", row.organization_id)
        .where("notification_id", "=", row.key)
        .execute();
      delta.records -= 1;
      delta.bytes -= Buffer.byteLength(row.record);
      erased++;
      continue;
    }
    const cleaned = scrub(record, scope.userId, scope.pseudonym);
    if (cleaned === record) continue;
    const text = JSON.stringify(cleaned);
    delta.bytes += Buffer.byteLength(text) - Buffer.byteLength(row.record);
    await rewriteScanned(tx, TABLE, scope.workspaceId, row, text);
    erased++;
  }
  for (const [organizationId, delta] of changes)
    await recordsChanged(tx, {
      workspaceId: scope.workspaceId,
      organizationId,
      kind: "notification",
      recordIds: delta.ids,
      usage: delta,
      now: scope.now,
    });
  return erased;
}

async function eraseInboxRows(tx: WriteTx, scope: ErasureScope, batch: number) {
  const table = { table: "notification_recipients", keys: ["notification_id", "user_id"] } as const;
  const result = await deleteUserRows(tx, table, scope, batch);
  return { erased: result.erased, next: result.next === null ? ["owed"] : ["recipients"] };
}

/**
 * Bytes of open fan-out subjects one step of the owed walk reads and may rewrite. A subject
 * lists up to 1 800 user ids of up to 768 bytes each (about 1.4 MB), so `batch` whole subjects
 * could be hundreds of MB in one transaction; the step sizes them first and reads those that
 * fit, at least one.
 */
export const OWED_BYTES_PER_STEP = 1 << 20;

/**
 * Open fan-out jobs owe inbox rows to users by id (notifications/fan-out.ts); the job would
 * write none for this user (the record no longer addresses them), but its subject still
 * names them until it runs. Their id is blanked in place, not removed: the job's cursor is
 * a position in that list. Walk: the workspace's open fan-out tasks in job id order (the
 * partial index job_tasks_open_by_kind), up to `batch` of them and OWED_BYTES_PER_STEP.
 */
async function eraseOwedRows(tx: WriteTx, scope: ErasureScope, after: Position, batch: number) {
  // octet_length reads neither dialect's stored value: SQLite takes it from the record's
  // header, PostgreSQL from the TOAST pointer.
  let open = tx
    .selectFrom("job_tasks")
    .select(["job_id", "seq", sql<number | string | null>`octet_length(subject)`.as("bytes")])
    .where("workspace_id", "=", scope.workspaceId)
    .where("kind", "=", FAN_OUT)
    .where("completed_at", "is", null)
    .orderBy("job_id")
    .orderBy("seq")
    .limit(batch);
  const afterJob = after?.[0];
  if (typeof afterJob === "string") open = open.where("job_id", ">", afterJob);
  const sized = await open.execute();
  const taken: typeof sized = [];
  let bytes = 0;
  for (const task of sized) {
    bytes += Number(task.bytes ?? 0);
    if (taken.length > 0 && bytes > OWED_BYTES_PER_STEP) break;
    taken.push(task);
  }
  const last = taken.at(-1);
  if (!last) return { erased: 0, next: null };
  const rows = await tx
    .selectFrom("job_tasks")
    .select(["job_id", "seq", "subject"])
    .where("workspace_id", "=", scope.workspaceId)
    .where((eb) =>
      eb(
        eb.refTuple("job_id", "seq"),
        "in",
        taken.map((task) => eb.tuple(task.job_id, task.seq)),
      ),
    )
    .execute();
  let erased = 0;
  for (const row of rows) {
    if (row.subject === null) continue;
    const owed = JSON.parse(row.subject) as { organizationId: string; userIds: (string | null)[] };
    if (scope.organizationIds !== null && !scope.organizationIds.includes(owed.organizationId)) continue;
    if (!owed.userIds.includes(scope.userId)) continue;
    const userIds = owed.userIds.map((userId) => (userId === scope.userId ? null : userId));
    await tx
      .updateTable("job_tasks")
      .set({ subject: JSON.stringify({ ...owed, userIds }) })
      .where("workspace_id", "=", scope.workspaceId)
      .where("job_id", "=", row.job_id)
      .where("seq", "=", row.seq)
      .execute();
    erased++;
  }
  const more = taken.length < sized.length || sized.length === batch;
  return { erased, next: more ? ["owed", last.job_id] : null };
}
