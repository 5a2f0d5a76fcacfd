import { accessOperations } from "../areas/access/routes.js";
import { activityOperations } from "../areas/activities/routes.js";
import { advancedWebhookOperations } from "../areas/advanced-webhooks/routes.js";
import { commentOperations } from "../areas/comments/routes.js";
import { documentOperations } from "../areas/documents/routes.js";
import { folderOperations } from "../areas/folders/routes.js";
import { refuseWhileSwept, refuseWhileSweptIn } from "../areas/hierarchy/tombstones.js";
import { locationOperations } from "../areas/locations/routes.js";
import { notificationConfigOperations } from "../areas/notification-config/routes.js";
import { notificationServiceOperations } from "../areas/notification-service/routes.js";
import { notificationOperations } from "../areas/notifications/routes.js";
import { organizationOperations } from "../areas/organizations/routes.js";
import { recordingOperations } from "../areas/recordings/routes.js";
import { userGroupOperations } from "../areas/user-groups/routes.js";
import { userOperations } from "../areas/users/routes.js";
import { webhookOperations } from "../areas/webhooks/routes.js";
import type { Ctx } from "../context.js";
import { refuseNamingErased } from "../privacy/erasing.js";
import { userDataOperations } from "../privacy/routes.js";
import type { Operation } from "./operation.js";

/** Operations that may name an organization or document being swept: they read the sweep itself. */
const SEE_SWEEPS = new Set(["/v2/organizations/delete/status"]);
/** Operations that may bury what they name (tombstones): they lock it exclusively. */
const BURY = new Set([
  "/v2/organizations/delete",
  "/v2/organizations/documents/delete",
  "/v2/organizations/folders/delete",
  "/v2/organizations/documents/migrate",
]);
/** The operation that lists users as being erased: it names them, and must not be refused for it. */
const ERASES = new Set(["/v2/users/data/delete"]);

/**
 * An operation that first refuses an organization or document whose delete is still being
 * swept (areas/hierarchy/tombstones.ts), and whose every write transaction checks again,
 * atomically with the write, both that and that its data names no user being erased
 * (privacy/erasing.ts): one place for every operation, present and future.
 */
function guarded(op: Operation): Operation {
  const sweeps = !SEE_SWEEPS.has(op.path);
  const erasing = !ERASES.has(op.path);
  const mode = BURY.has(op.path) ? "exclusive" : "shared";
  return {
    ...op,
    handle: async (ctx, data) => {
      if (sweeps) await refuseWhileSwept(ctx.reader, ctx.workspace.id, data);
      const checked: Ctx = {
        ...ctx,
        write: (work, rows) =>
          ctx.write(async (trx) => {
            if (sweeps) await refuseWhileSweptIn(trx, ctx.workspace.id, data, mode);
            if (erasing) await refuseNamingErased(trx, ctx.workspace.id, data);
            return work(trx);
          }, rows),
      };
      return op.handle(checked, data);
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
  ...notificationServiceOperations,
  ...documentOperations,
  ...locationOperations,
  ...accessOperations,
  ...userOperations,
  ...userGroupOperations,
  ...webhookOperations,
  ...advancedWebhookOperations,
  ...commentOperations,
  ...userDataOperations,
].map(guarded);
