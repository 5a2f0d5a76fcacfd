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
 * Open fan-out jobs owe inbox rows to users by id (notifications/fan-out.ts); the job would
 * write none for this user (the record no longer addresses them), but its subject still
 * names them until it runs. Their id is blanked in place, not removed: the job's cursor is
 * a position in that list. Walk: the workspace's open fan-out tasks in job id order.
 */
async function eraseOwedRows(tx: WriteTx, scope: ErasureScope, after: Position, batch: number) {
  let tasks = tx
    .selectFrom("job_tasks")
    .select(["job_id", "seq", "subject"])
    .where("workspace_id", "=", scope.workspaceId)
    .where("kind", "=", FAN_OUT)
    .where("completed_at", "is", null)
    .orderBy("job_id")
    .orderBy("seq")
    .limit(batch);
  const afterJob = after?.[0];
  if (typeof afterJob === "string") tasks = tasks.where("job_id", ">", afterJob);
  const rows = await tasks.execute();
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
  const last = rows.at(-1);
  return { erased, next: rows.length < batch || !last ? null : ["owed", last.job_id] };
}
