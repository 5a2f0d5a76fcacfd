import { inListChunks } from "../../db/batches.js";
import type { WriteTx } from "../../db/handles.js";

/**
 * Removes every grant on the given resources, for all users: a deleted folder's grants
 * must not come back to life if a folder with the same id is created later.
 */
export async function deleteGrantsOn(
  db: WriteTx,
  workspaceId: string,
  organizationId: string,
  resourceType: string,
  resourceIds: readonly string[],
): Promise<void> {
  for (const chunk of inListChunks(resourceIds)) {
    await db
      .deleteFrom("access_grants")
      .where("workspace_id", "=", workspaceId)
      .where("organization_id", "=", organizationId)
      .where("resource_type", "=", resourceType)
      .where("resource_id", "in", chunk)
      .execute();
  }
}
