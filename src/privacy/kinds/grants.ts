import { deleteUserRows } from "../delete-rows.js";
import type { PersonalDataKind } from "../kind.js";

/** Access grants naming the user (permissions add): exported as they are, erased by deleting them. */
export const grants: PersonalDataKind = {
  name: "grants",
  exportKey: "grants",
  async export(read, scope, after, limit) {
    let query = read
      .selectFrom("access_grants")
      .select(["resource_type", "resource_id", "access_role", "expires_at", "created_at", "updated_at"])
      .where("workspace_id", "=", scope.workspaceId)
      .where("organization_id", "=", scope.organizationId)
      .where("user_id", "=", scope.userId);
    if (after !== null) {
      query = query.where((eb) =>
        eb(eb.refTuple("resource_type", "resource_id"), ">", eb.tuple(String(after[0]), String(after[1]))),
      );
    }
    const rows = await query.orderBy("resource_type").orderBy("resource_id").limit(limit).execute();
    const last = rows.at(-1);
    return {
      items: rows.map((row) => ({
        organizationId: scope.organizationId,
        type: row.resource_type,
        id: row.resource_id,
        accessRole: row.access_role,
        ...(row.expires_at !== null ? { expiresAt: Number(row.expires_at) } : {}),
        createdAt: Number(row.created_at),
        updatedAt: Number(row.updated_at),
      })),
      next: rows.length === limit && last ? [last.resource_type, last.resource_id] : null,
    };
  },
  erase: (tx, scope, _after, batch) =>
    deleteUserRows(
      tx,
      { table: "access_grants", keys: ["resource_type", "resource_id", "user_id"] },
      scope,
      batch,
    ),
};
