import { accessOperations } from "../areas/access/routes.js";
import { activityOperations } from "../areas/activities/routes.js";
import { advancedWebhookOperations } from "../areas/advanced-webhooks/routes.js";
import { commentOperations } from "../areas/comments/routes.js";
import { documentOperations } from "../areas/documents/routes.js";
import { folderOperations } from "../areas/folders/routes.js";
import { refuseWhileSwept } from "../areas/hierarchy/tombstones.js";
import { notificationConfigOperations } from "../areas/notification-config/routes.js";
import { notificationOperations } from "../areas/notifications/routes.js";
import { organizationOperations } from "../areas/organizations/routes.js";
import { recordingOperations } from "../areas/recordings/routes.js";
import { userOperations } from "../areas/users/routes.js";
import { webhookOperations } from "../areas/webhooks/routes.js";
import { userDataOperations } from "../privacy/routes.js";
import type { Operation } from "./operation.js";

/** Operations that may name an organization or document being swept: they read the sweep itself. */
const SEE_SWEEPS = new Set(["/v2/organizations/delete/status"]);

/**
 * An operation that first refuses an organization or document whose delete is still being
 * swept (areas/hierarchy/tombstones.ts): one place for every operation, present and future.
 */
function refusingSwept(op: Operation): Operation {
  if (SEE_SWEEPS.has(op.path)) return op;
  return {
    ...op,
    handle: async (ctx, data) => {
      await refuseWhileSwept(ctx.reader, ctx.workspace.id, data);
      return op.handle(ctx, data);
    },
  };
}

/** Every operation the service serves; each area contributes its list. */
export const allOperations: readonly Operation[] = [
  ...activityOperations,
  ...organizationOperations,
  ...folderOperations,
  ...recordingOperations,
  ...notificationOperations,
  ...notificationConfigOperations,
  ...documentOperations,
  ...accessOperations,
  ...userOperations,
  ...webhookOperations,
  ...advancedWebhookOperations,
  ...commentOperations,
  ...userDataOperations,
].map(refusingSwept);
