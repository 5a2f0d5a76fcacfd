import { accessOperations } from "../areas/access/routes.js";
import { activityOperations } from "../areas/activities/routes.js";
import { commentOperations } from "../areas/comments/routes.js";
import { documentOperations } from "../areas/documents/routes.js";
import { folderOperations } from "../areas/folders/routes.js";
import { notificationConfigOperations } from "../areas/notification-config/routes.js";
import { notificationOperations } from "../areas/notifications/routes.js";
import { organizationOperations } from "../areas/organizations/routes.js";
import { recordingOperations } from "../areas/recordings/routes.js";
import { userDataOperations } from "../areas/user-data/routes.js";
import { userOperations } from "../areas/users/routes.js";
import { webhookOperations } from "../areas/webhooks/routes.js";
import type { Operation } from "./operation.js";

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
  ...commentOperations,
  ...userDataOperations,
];
