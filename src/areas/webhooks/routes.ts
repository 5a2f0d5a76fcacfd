import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import {
  DeliveryView,
  GetDeliveries,
  GetWebhookConfig,
  RetryDeliveries,
  RetryResults,
  UpdateWebhookConfig,
  WebhookConfigView,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "Webhooks";

export const webhookOperations = [
  operation({
    path: "/v2/workspace/webhookconfig/update",
    tag: TAG,
    summary: "Update webhook configuration",
    description:
      "Merges into the workspace's webhook configuration (triggers key by key); at least one of the two " +
      "fields. The first enable turns on the nine comment triggers unless they are set. Any bad field: " +
      "INVALID_ARGUMENT `Invalid webhook service configuration.` with `details`, nothing changed.",
    data: UpdateWebhookConfig,
    result: Type.Null(),
    handle: async (ctx, data) => {
      await service.updateConfig(ctx, data);
      return { message: "Webhook configuration updated successfully.", data: null };
    },
  }),
  operation({
    path: "/v2/workspace/webhookconfig/get",
    tag: TAG,
    summary: "Get webhook configuration (extension)",
    description: "The stored configuration with the auth token masked, and the `whsec_…` signing secret.",
    data: GetWebhookConfig,
    result: WebhookConfigView,
    handle: async (ctx) => ({
      message: "Webhook configuration retrieved successfully.",
      data: await service.getConfig(ctx),
    }),
  }),
  operation({
    path: "/v2/workspace/webhooks/deliveries/get",
    tag: TAG,
    summary: "Get webhook deliveries (extension)",
    description:
      "The delivery log, newest first, keyset-paged: status, attempts with HTTP status and duration, " +
      "next attempt. Filters combine with AND.",
    data: GetDeliveries,
    result: Type.Array(DeliveryView),
    list: true,
    handle: async (ctx, data) => {
      const page = await service.getDeliveries(ctx, data);
      return {
        message: "Webhook deliveries retrieved successfully.",
        data: page.deliveries,
        pageToken: page.pageToken,
      };
    },
  }),
  operation({
    path: "/v2/workspace/webhooks/deliveries/retry",
    tag: TAG,
    summary: "Retry webhook deliveries (extension)",
    description:
      "Attempts the given deliveries again now, failed or succeeded ones included, with a fresh retry " +
      "schedule and the same `webhook-id`. Per-id results.",
    data: RetryDeliveries,
    result: RetryResults,
    handle: async (ctx, data) => ({
      message: "Webhook delivery(s) queued for retry.",
      data: await service.retryDeliveries(ctx, data.deliveryIds),
    }),
  }),
];
