import type { PersonalDataKind } from "../kind.js";

/** The user's notification preferences (COMPAT §C.7). */
export const notificationConfigs: PersonalDataKind = {
  name: "notificationConfigs",
  exportKey: "notificationConfigs",
  async export(read, scope, after, limit) {
    let query = read
      .selectFrom("notification_configs")
      .select(["document_id", "config", "updated_at"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("organization_id", "=", scope.organizationId)
      .where("user_id", "=", scope.userId);
    if (after !== null) query = query.where("document_id", ">", String(after[0]));
    const rows = await query.orderBy("document_id").limit(limit).execute();
    const last = rows.at(-1);
    return {
      items: rows.map((row) => ({
        ...(row.document_id !== "" ? { documentId: row.document_id } : {}),
        config: JSON.parse(row.config) as unknown,
        updatedAt: Number(row.updated_at),
      })),
      next: rows.length === limit && last ? [last.document_id] : null,
    };
  },
  async erase(tx, scope, _after, batch) {
    let query = tx
      .selectFrom("notification_configs")
      .select(["organization_id", "document_id"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("user_id", "=", scope.userId);
    if (scope.organizationIds) query = query.where("organization_id", "in", [...scope.organizationIds]);
    const rows = await query.limit(batch).execute();
    if (rows.length > 0) {
      await tx
        .deleteFrom("notification_configs")
        .where("workspace_id", "=", scope.workspaceId)
        .where("user_id", "=", scope.userId)
        .where((eb) =>
          eb(
            eb.refTuple("organization_id", "document_id"),
            "in",
            rows.map((r) => eb.tuple(r.organization_id, r.document_id)),
          ),
        )
        .execute();
    }
    return { erased: rows.length, next: rows.length < batch ? null : [] };
  },
};
