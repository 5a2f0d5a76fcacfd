import { rewriteDelta } from "../../quotas/by-verbs.js";
import { releaseUsage } from "../../quotas/check.js";
import { eraseRecordDeliveries } from "../../webhooks/history.js";
import type { PersonalDataKind } from "../kind.js";
import { scrub } from "../scrub.js";

/**
 * Activities the user acted in are kept, so the log stays readable, with the user
 * pseudonymized (docs/privacy.md): `user_id` and every mention in the record (their
 * `actionUser` whole, with name, email and the rest) become the job's pseudonym and
 * "Deleted user". Their webhook deliveries' content is erased. The rewrite moves them out
 * of the user's index range, so each batch starts again from the front of it.
 */
export const activities: PersonalDataKind = {
  name: "activities",
  exportKey: "activities",
  async export(read, scope, after, limit) {
    let query = read
      .selectFrom("activities")
      .select(["id", "record"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("user_id", "=", scope.userId)
      .where("organization_id", "=", scope.organizationId);
    if (after !== null) query = query.where("id", ">", String(after[0]));
    const rows = await query.orderBy("id").limit(limit).execute();
    const last = rows.at(-1);
    return {
      items: rows.map((row) => JSON.parse(row.record) as unknown),
      next: rows.length === limit && last ? [last.id] : null,
    };
  },
  async erase(tx, scope, _after, batch) {
    let query = tx
      .selectFrom("activities")
      .select(["organization_id", "id", "record"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("user_id", "=", scope.userId);
    if (scope.organizationIds) query = query.where("organization_id", "in", [...scope.organizationIds]);
    const rows = await query.orderBy("organization_id").orderBy("id").limit(batch).execute();
    const byOrganization = new Map<string, string[]>();
    const after: string[] = [];
    for (const row of rows) {
      const record = JSON.stringify(scrub(JSON.parse(row.record), scope.userId, scope.pseudonym));
      after.push(record);
      await tx
        .updateTable("activities")
        .set({ user_id: scope.pseudonym, record })
        .where("workspace_id", "=", scope.workspaceId)
        .where("organization_id", "=", row.organization_id)
        .where("id", "=", row.id)
        .execute();
      byOrganization.set(row.organization_id, [...(byOrganization.get(row.organization_id) ?? []), row.id]);
    }
    // Activities are accounted by their verbs on both dialects (migrations 0007, 0008).
    await releaseUsage(
      tx,
      { workspace: { id: scope.workspaceId } },
      rewriteDelta(
        rows.map((r) => r.record),
        after,
      ),
    );
    for (const [organizationId, recordIds] of byOrganization) {
      await eraseRecordDeliveries(tx, {
        workspaceId: scope.workspaceId,
        organizationId,
        kind: "activity",
        recordIds,
        now: scope.now,
      });
    }
    return { erased: rows.length, next: rows.length < batch ? null : [] };
  },
};
