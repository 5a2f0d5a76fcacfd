import { activityOperations } from "../areas/activities/routes.js";
import { notificationOperations } from "../areas/notifications/routes.js";
import type { Operation } from "./operation.js";

/** Every operation the service serves; each area contributes its list. */
export const allOperations: readonly Operation[] = [...activityOperations, ...notificationOperations];
