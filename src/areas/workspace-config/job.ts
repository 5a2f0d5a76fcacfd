import type { JobType } from "../../jobs/types.js";
import { inheritInOrganization } from "../folders/tree.js";
import { findWorkspace } from "../workspaces/store.js";

/** The durable-job type that passes a new defaultDocumentAccessType down to top-level folders. */
export const DEFAULT_ACCESS = "default-access";

/**
 * Organizations in id order, at most `batch` top-level folders per batch, under the tree lock
 * (as the CLI's `workspace update --default-access-type`). A full batch leaves the cursor inside
 * its organization, `[organization, path of its last folder]`, so the next batch starts after it;
 * otherwise the cursor is `[organization]`, and the next batch takes the next organization. Each
 * batch applies the workspace's setting as it is then, so of two quick changes the later wins
 * whichever job runs last.
 */
export const defaultAccessJob: JobType = {
  name: DEFAULT_ACCESS,
  async runBatch(tx, _kind, scope, after, batch) {
    const workspace = await findWorkspace(tx, scope.workspaceId);
    if (!workspace) return { done: 0, next: null };
    const inside = after !== null && after.length === 2 ? String(after[1]) : null;
    const organizationId =
      inside !== null
        ? String(after![0])
        : (
            await tx
              .selectFrom("organizations")
              .select("organization_id")
              .where("workspace_id", "=", scope.workspaceId)
              .where("organization_id", ">", after === null ? "" : String(after[0]))
              .orderBy("organization_id")
              .limit(1)
              .executeTakeFirst()
          )?.organization_id;
    if (organizationId === undefined) return { done: 0, next: null };
    const { done, lastPath } = await inheritInOrganization(
      tx,
      scope.workspaceId,
      organizationId,
      workspace.defaultAccessType,
      scope.now,
      { limit: batch, afterPath: inside },
    );
    return {
      done,
      next: done === batch && lastPath !== null ? [organizationId, lastPath] : [organizationId],
    };
  },
};
