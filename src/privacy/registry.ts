import type { PersonalDataKind } from "./kind.js";
import { activities } from "./kinds/activities.js";
import { comments, reactions } from "./kinds/comments.js";
import { commentMentions, documentMetadata, organizationMetadata } from "./kinds/copies.js";
import { crdtStores } from "./kinds/crdt.js";
import { grants } from "./kinds/grants.js";
import { idempotencyAnswers } from "./kinds/idempotency.js";
import { notificationConfigs } from "./kinds/notification-configs.js";
import { notifications } from "./kinds/notifications.js";
import { recordings } from "./kinds/recordings.js";
import { notificationBatches, userGroups } from "./kinds/user-groups.js";
import { users } from "./kinds/users.js";
import { webhookEndpoints } from "./kinds/webhook-endpoints.js";
import { webhookDeliveries } from "./kinds/webhooks.js";

/**
 * Every kind of personal data collabd stores (docs/privacy.md). An erasure job runs one
 * task per (user, kind), in this order; an export fills one key per kind. A new table
 * that holds user data adds its module here, and the schema-wide erasure test
 * (test/areas/privacy-erase.test.ts) fails until it does.
 */
export const PERSONAL_DATA_KINDS: readonly PersonalDataKind[] = [
  users,
  grants,
  notificationConfigs,
  userGroups,
  notificationBatches,
  comments,
  reactions,
  commentMentions,
  organizationMetadata,
  documentMetadata,
  notifications,
  recordings,
  activities,
  crdtStores,
  webhookEndpoints,
  idempotencyAnswers,
  // Last: whatever event still names the user once the records above are done.
  webhookDeliveries,
];

export function kindNamed(name: string): PersonalDataKind | undefined {
  return PERSONAL_DATA_KINDS.find((kind) => kind.name === name);
}
