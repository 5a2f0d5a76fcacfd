import type { JobType } from "../../jobs/types.js";
import { inheritInOrganization } from "../folders/tree.js";
import { findWorkspace } from "../workspaces/store.js";

/** The durable-job type that passes a new defaultDocumentAccessType down to top-level folders. */
export const DEFAULT_ACCESS = "default-access";

/**
 * Organizations in id order, at most `batch` top-level folders per batch, under the tree lock
 * (as the CLI's `workspace update --default-access-type`); a full batch stays on its organization,
 * whose done folders no longer match. Each batch applies the workspace's setting as it is then,
 * so of two quick changes the later wins whichever job runs last.
 */
export const defaultAccessJob: JobType = {
  name: DEFAULT_ACCESS,
  async runBatch(tx, _kind, scope, after, batch) {
    const workspace = await findWorkspace(tx, scope.workspaceId);
    if (!workspace) return { done: 0, next: null };
    const org = await tx
      .selectFrom("organizations")
      .select("organization_id")
      .where("workspace_id", "=", scope.workspaceId)
      .where("organization_id", ">", after === null ? "" : String(after[0]))
      .orderBy("organization_id")
      .limit(1)
      .executeTakeFirst();
    if (!org) return { done: 0, next: null };
    const organizationId = org.organization_id;
    const done = await inheritInOrganization(
      tx,
      scope.workspaceId,
      organizationId,
      workspace.defaultAccessType,
      scope.now,
      batch,
    );
    // A full batch may have left folders of this organization: the next one starts before it again.
    return { done, next: done === batch ? [after === null ? "" : String(after[0])] : [organizationId] };
  },
};
