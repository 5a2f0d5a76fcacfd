import { operation } from "../../http/operation.js";
import { GetServiceConfig, ServiceConfigView, UpdateServiceConfig } from "./schemas.js";
import { MESSAGES, serviceConfig, updateServiceConfig } from "./service.js";

const TAG = "Workspace";

const DEFAULTS = {
  triggers: { comment: {}, huddle: {} },
  delayConfig: { isEnabled: false, delaySeconds: 10 },
  batchConfig: {
    document: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 },
    user: { isEnabled: false, batchWindowSeconds: 10, maxActivities: 2 },
  },
};

export const notificationServiceOperations = [
  operation({
    path: "/v2/workspace/notificationconfig/get",
    operationId: "notificationServiceConfigGet",
    tag: TAG,
    summary: "Get the notification service configuration",
    description:
      "The whole state with defaults filled in (off, delay 10 s, batch windows 10 s of at most 2 events). " +
      'The body may be left out: none, `{}` and `{"data": {}}` all work.',
    data: GetServiceConfig,
    bodyOptional: true,
    result: ServiceConfigView,
    example: {
      data: {},
      message: MESSAGES.retrieved,
      result: { useNotificationService: false, notificationServiceConfig: DEFAULTS },
    },
    handle: async (ctx) => ({ message: MESSAGES.retrieved, data: await serviceConfig(ctx) }),
  }),
  operation({
    path: "/v2/workspace/notificationconfig/update",
    operationId: "notificationServiceConfigUpdate",
    tag: TAG,
    summary: "Update the notification service configuration",
    description:
      "Merges what is sent into the stored configuration (fields left out keep their value); needs " +
      "`useNotificationService` or `notificationServiceConfig`. The first `useNotificationService: true` on a " +
      "configuration without triggers seeds them: every comment trigger but `suggestionAccepted` and " +
      "`suggestionRejected`, and every huddle trigger; the request's values go on top. With the service on, " +
      "each enabled comment trigger writes inbox notifications for the users the event concerns (mentioned, " +
      "assigned, subscribed, the thread's author on replies), after `delayConfig` and combined per " +
      "`batchConfig`. Answers the whole state, as get.",
    data: UpdateServiceConfig,
    result: ServiceConfigView,
    example: {
      data: {
        useNotificationService: true,
        notificationServiceConfig: { delayConfig: { isEnabled: true, delaySeconds: 60 } },
      },
      message: MESSAGES.updated,
      result: {
        useNotificationService: true,
        notificationServiceConfig: {
          ...DEFAULTS,
          triggers: {
            comment: {
              newlyAdded: true,
              added: true,
              updated: true,
              deleted: true,
              statusChanged: true,
              assigned: true,
              priorityChanged: true,
              reactionAdded: true,
              reactionDeleted: true,
              suggestionAccepted: false,
              suggestionRejected: false,
            },
            huddle: { created: true, join: true },
          },
          delayConfig: { isEnabled: true, delaySeconds: 60 },
        },
      },
    },
    handle: async (ctx, data) => ({ message: MESSAGES.updated, data: await updateServiceConfig(ctx, data) }),
  }),
];
