import type { PersonalDataKind } from "../kind.js";
import {
  deleteScanned,
  exportScanned,
  type RecordTable,
  rewriteScanned,
  type ScannedRow,
  scannedChanged,
  scanRecords,
} from "../scan.js";
import { mentions, scrub } from "../scrub.js";

const TABLE: RecordTable = { table: "recordings", key: "annotation_id" };

const speakerOf = (record: unknown): unknown => (record as { from?: { userId?: unknown } }).from?.userId;

/**
 * Recordings the user made (`from.userId`, docs/contract.md "Recordings") are deleted; any other recording
 * naming them is scrubbed. Either way the content of their webhook deliveries is erased.
 */
export const recordings: PersonalDataKind = {
  name: "recordings",
  exportKey: "recordings",
  export: (read, scope, after, limit) =>
    exportScanned(read, TABLE, scope, after, limit, (r) => mentions(r, scope.userId)),
  async erase(tx, scope, after, batch) {
    const step = await scanRecords(tx, TABLE, scope, after, batch);
    const touched: ScannedRow[] = [];
    for (const row of step.rows) {
      const record = JSON.parse(row.record) as unknown;
      if (speakerOf(record) === scope.userId) await deleteScanned(tx, TABLE, scope.workspaceId, row);
      else {
        const cleaned = scrub(record, scope.userId, scope.pseudonym);
        if (cleaned === record) continue;
        await rewriteScanned(tx, TABLE, scope.workspaceId, row, JSON.stringify(cleaned));
      }
      touched.push(row);
    }
    await scannedChanged(tx, scope, "recording", touched);
    return { erased: step.rows.length, next: step.next };
  },
};
