import { deleteUserRows } from "../delete-rows.js";
import type { PersonalDataKind } from "../kind.js";

/** The user's user-group memberships (docs/compatibility.md "User groups"): erasure removes the user from every group. */
export const userGroups: PersonalDataKind = {
  name: "userGroups",
  exportKey: "userGroups",
  async export(read, scope, after, limit) {
    let query = read
      .selectFrom("user_group_members as m")
      .innerJoin("user_groups as g", (join) =>
        join
          .onRef("g.workspace_id", "=", "m.workspace_id")
          .onRef("g.organization_id", "=", "m.organization_id")
          .onRef("g.group_id", "=", "m.group_id"),
      )
      .select(["m.group_id", "g.group_name", "m.created_at"])
      .where("m.workspace_id", "=", scope.workspaceId)
      .where("m.organization_id", "=", scope.organizationId)
      .where("m.user_id", "=", scope.userId);
    if (after !== null) query = query.where("m.group_id", ">", String(after[0]));
    const rows = await query.orderBy("m.group_id").limit(limit).execute();
    const last = rows.at(-1);
    return {
      items: rows.map((row) => ({
        groupId: row.group_id,
        ...(row.group_name !== "" ? { groupName: row.group_name } : {}),
        addedAt: Number(row.created_at),
      })),
      next: rows.length === limit && last ? [last.group_id] : null,
    };
  },
  erase: (tx, scope, _after, batch) =>
    deleteUserRows(tx, { table: "user_group_members", keys: ["group_id", "user_id"] }, scope, batch),
};

/** Where the user's next notifications would be batched (bookkeeping of the notification service; nothing to export). */
export const notificationBatches: PersonalDataKind = {
  name: "notificationBatches",
  erase: (tx, scope, _after, batch) =>
    deleteUserRows(tx, { table: "notification_batches", keys: ["user_id", "document_id"] }, scope, batch),
};
