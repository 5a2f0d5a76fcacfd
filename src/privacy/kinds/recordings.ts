import { recordsChanged } from "../../records/effects.js";
import type { PersonalDataKind } from "../kind.js";
import { exportScanned, scanRecords } from "../scan.js";
import { mentions, scrub } from "../scrub.js";

const TABLE = { table: "recordings", key: "annotation_id" } as const;

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
    const touched = new Map<string, string[]>();
    for (const row of step.rows) {
      const record = JSON.parse(row.record) as unknown;
      if (speakerOf(record) === scope.userId) {
        await tx
          .deleteFrom("recordings")
          .where("workspace_id", "=", scope.workspaceId)
          .where("organization_id", "=", row.organization_id)
          .where("annotation_id", "=", row.key)
          .execute();
      } else {
        const cleaned = scrub(record, scope.userId, scope.pseudonym);
        if (cleaned === record) continue;
        await tx
          .updateTable("recordings")
          .set({ record: JSON.stringify(cleaned) })
          .where("workspace_id", "=", scope.workspaceId)
          .where("organization_id", "=", row.organization_id)
          .where("annotation_id", "=", row.key)
          .execute();
      }
      touched.set(row.organization_id, [...(touched.get(row.organization_id) ?? []), row.key]);
    }
    for (const [organizationId, recordIds] of touched) {
      await recordsChanged(tx, {
        workspaceId: scope.workspaceId,
        organizationId,
        kind: "recording",
        recordIds,
        usage: null,
        now: scope.now,
      });
    }
    return { erased: step.rows.length, next: step.next };
  },
};
