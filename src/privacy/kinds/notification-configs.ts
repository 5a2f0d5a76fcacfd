import { deleteUserRows } from "../delete-rows.js";
import type { PersonalDataKind } from "../kind.js";

/** The user's notification preferences (docs/contract.md "Notification preferences"). */
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
  erase: (tx, scope, _after, batch) =>
    deleteUserRows(tx, { table: "notification_configs", keys: ["user_id", "document_id"] }, scope, batch),
};
