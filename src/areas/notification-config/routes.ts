import { operation } from "../../http/operation.js";
import { ConfigEntries, ConfigSetResults, GetNotificationConfig, SetNotificationConfig } from "./schemas.js";
import { CONFIG_SET, getConfig, setConfig } from "./service.js";

export const notificationConfigOperations = [
  operation({
    path: "/v2/notifications/config/set",
    operationId: "notificationsConfigSet",
    tag: "Notifications",
    summary: "Set users' notification preferences",
    description:
      "Merges `config` (channels `inbox`, `email`, `slack`; values `ALL`, `MINE`, `NONE`) into each user's " +
      "stored config for each of `documentIds`, or into their organization-wide default when absent. " +
      "`inbox` decides which notifications reach the user's list: `MINE` only those naming the user in " +
      "`notifyUsers`, `NONE` none. Keyed by userId.",
    data: SetNotificationConfig,
    result: ConfigSetResults,
    example: {
      data: { organizationId: "org-1", userIds: ["u4"], config: { inbox: "MINE", email: "NONE" } },
      message: CONFIG_SET,
      result: { u4: { success: true, userId: "u4", message: CONFIG_SET } },
    },
    handle: async (ctx, data) => ({ message: CONFIG_SET, data: await setConfig(ctx, data) }),
  }),
  operation({
    path: "/v2/notifications/config/get",
    operationId: "notificationsConfigGet",
    tag: "Notifications",
    summary: "Get a user's notification preferences",
    description:
      "One entry per document of `documentIds` (document keys over the organization default), and with " +
      "`getOrganizationConfig` the organization default first. A channel set nowhere is absent.",
    data: GetNotificationConfig,
    result: ConfigEntries,
    example: {
      data: { organizationId: "org-1", userId: "u4", documentIds: ["doc-1"], getOrganizationConfig: true },
      message: "User config fetched successfully.",
      result: [
        {
          config: { inbox: "MINE", email: "NONE" },
          metadata: { organizationId: "org-1", apiKey: "ak_example", userId: "u4" },
        },
        {
          config: { inbox: "MINE", email: "NONE" },
          metadata: { organizationId: "org-1", apiKey: "ak_example", documentId: "doc-1", userId: "u4" },
        },
      ],
    },
    handle: async (ctx, data) => ({
      message: "User config fetched successfully.",
      data: await getConfig(ctx, data),
    }),
  }),
];
