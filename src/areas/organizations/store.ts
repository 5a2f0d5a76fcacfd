import type { Readable } from "../../db/handles.js";
import type { OrganizationRow } from "../../db/tables.js";

type Db = Readable;

export {
  findOrganization,
  insertOrganizations,
  type Organization,
  rowToOrganization,
} from "../hierarchy/organizations.js";

/** One keyset page in organizationId order. */
export async function listOrganizations(
  db: Db,
  workspaceId: string,
  filter: { ids?: readonly string[] | undefined; after: string | null; limit: number },
): Promise<OrganizationRow[]> {
  let query = db.selectFrom("organizations").selectAll().where("workspace_id", "=", workspaceId);
  if (filter.ids) query = query.where("organization_id", "in", [...filter.ids]);
  if (filter.after !== null) query = query.where("organization_id", ">", filter.after);
  return query
    .orderBy("organization_id")
    .limit(filter.limit + 1)
    .execute();
}
