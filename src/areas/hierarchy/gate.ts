import type { Readable } from "../../db/handles.js";
import type { AccessType } from "./paths.js";

/**
 * What decides access before any grant is read (docs/contract.md "Access", "Organizations"): whether the
 * organization is disabled (then nobody has access), and the workspace's
 * defaultAccessType, which documents at the root inherit. An organization without a
 * record is not disabled.
 */
export interface OrganizationGate {
  readonly disabled: boolean;
  readonly rootAccess: AccessType;
}

export async function organizationGate(
  db: Readable,
  workspaceId: string,
  organizationId: string,
): Promise<OrganizationGate> {
  const row = await db
    .selectFrom("workspaces")
    .leftJoin("organizations", (join) =>
      join
        .onRef("organizations.workspace_id", "=", "workspaces.id")
        .on("organizations.organization_id", "=", organizationId),
    )
    .select(["workspaces.default_access_type", "organizations.disabled"])
    .where("workspaces.id", "=", workspaceId)
    .executeTakeFirst();
  return {
    disabled: Number(row?.disabled ?? 0) === 1,
    rootAccess: (row?.default_access_type ?? "organizationPrivate") as AccessType,
  };
}
