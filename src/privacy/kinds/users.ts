import {
  deleteAccessOfUsersInOrganization,
  deleteProfilesOfUsersInOrganization,
  organizationsOfUser,
  userRowsInOrganization,
} from "../../areas/users/store.js";
import type { PersonalDataKind } from "../kind.js";

/**
 * The user's profile and memberships (docs/contract.md "Users"; src/areas/users/store.ts). Export: one
 * page (a user has one profile per organization and a few memberships). Erasure deletes
 * profile, memberships and grants in each organization of the scope (all the user's
 * organizations when the job names none).
 */
export const users: PersonalDataKind = {
  name: "users",
  exportKey: "users",
  async export(read, scope, after) {
    if (after !== null) return { items: [], next: null };
    const rows = await userRowsInOrganization(read, scope.workspaceId, scope.organizationId, scope.userId);
    const items: unknown[] = [];
    if (rows.profile) {
      items.push({
        kind: "profile",
        organizationId: scope.organizationId,
        user: JSON.parse(rows.profile.profile) as unknown,
        createdAt: Number(rows.profile.created_at),
        lastUpdated: Number(rows.profile.last_updated),
      });
    }
    for (const m of rows.memberships) {
      items.push({ kind: "membership", level: m.level, levelId: m.level_id, accessRole: m.access_role });
    }
    return { items, next: null };
  },
  async erase(tx, scope) {
    const organizations =
      scope.organizationIds ?? (await organizationsOfUser(tx, scope.workspaceId, scope.userId));
    for (const organizationId of organizations) {
      await deleteAccessOfUsersInOrganization(tx, scope.workspaceId, organizationId, [scope.userId]);
      await deleteProfilesOfUsersInOrganization(tx, scope.workspaceId, organizationId, [scope.userId]);
    }
    return { erased: organizations.length, next: null };
  },
};
