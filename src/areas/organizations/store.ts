import { inListChunks } from "../../db/batches.js";
import type { Readable, WriteTx } from "../../db/handles.js";
import type { OrganizationRow } from "../../db/tables.js";

type Db = Readable;

export {
  insertOrganizations,
  rowToOrganization,
} from "../hierarchy/organizations.js";

/** Up to `rows` organizations after `after`, in organizationId order (one chunk of a page). */
export async function listOrganizations(
  db: Db,
  workspaceId: string,
  filter: { ids?: readonly string[] | undefined; after: string | null; rows: number },
): Promise<OrganizationRow[]> {
  let query = db.selectFrom("organizations").selectAll().where("workspace_id", "=", workspaceId);
  if (filter.ids) query = query.where("organization_id", "in", [...filter.ids]);
  if (filter.after !== null) query = query.where("organization_id", ">", filter.after);
  return query.orderBy("organization_id").limit(filter.rows).execute();
}

/** The stored rows among `ids`, keyed by organizationId. */
export async function findOrganizationRows(
  db: Db,
  workspaceId: string,
  ids: readonly string[],
): Promise<Map<string, OrganizationRow>> {
  const found = new Map<string, OrganizationRow>();
  for (const chunk of inListChunks(ids)) {
    const rows = await db
      .selectFrom("organizations")
      .selectAll()
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "in", chunk)
      .execute();
    for (const row of rows) found.set(row.organization_id, row);
  }
  return found;
}

export async function updateOrganizationRow(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  change: { organizationName?: string; metadata: string | null; now: number },
): Promise<void> {
  await db
    .updateTable("organizations")
    .set({
      ...(change.organizationName === undefined ? {} : { organization_name: change.organizationName }),
      metadata: change.metadata,
      last_updated: change.now,
    })
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .execute();
}

export async function setOrganizationsDisabled(
  db: WriteTx,
  workspaceId: string,
  ids: readonly string[],
  disabled: boolean,
  now: number,
): Promise<void> {
  await db
    .updateTable("organizations")
    .set({ disabled: disabled ? 1 : 0, last_updated: now })
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "in", [...ids])
    .execute();
}

/** The organization row itself, after its cascades (hierarchy/cascade.ts). */
export async function deleteOrganizationRow(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
): Promise<void> {
  await db
    .deleteFrom("organizations")
    .where("workspace_id", "=", workspaceId)
    .where("organization_id", "=", organizationId)
    .execute();
}
