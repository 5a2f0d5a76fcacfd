import type { Readable } from "../../db/handles.js";
import { groupsOfUsers } from "../user-groups/store.js";
import type { AnnotationRecord } from "./objects.js";

/**
 * Who may see a restricted thread among `userIds`: those it lists and the members of its
 * user groups at this moment (docs/compatibility.md "User groups"). One lookup for all
 * threads, bounded by the users asked about, whatever the groups hold. A thread that is not
 * restricted answers null: its visibility excludes nobody.
 */
export async function restrictedViewers(
  db: Readable,
  scope: { readonly workspaceId: string; readonly organizationId: string },
  annotations: readonly AnnotationRecord[],
  userIds: readonly string[],
): Promise<(annotation: AnnotationRecord) => ReadonlySet<string> | null> {
  const groupIds = annotations.flatMap((a) =>
    a.visibilityConfig.type === "restricted" ? (a.visibilityConfig.organizationUserGroupIds ?? []) : [],
  );
  const groupsOf = await groupsOfUsers(db, scope, groupIds, userIds);
  return (annotation) => {
    const visibility = annotation.visibilityConfig;
    if (visibility.type !== "restricted") return null;
    const viewers = new Set(visibility.userIds ?? []);
    const groups = visibility.organizationUserGroupIds ?? [];
    for (const [userId, memberOf] of groupsOf) {
      if (groups.some((g) => memberOf.has(g))) viewers.add(userId);
    }
    return viewers;
  };
}
