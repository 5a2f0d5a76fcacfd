import { Type } from "typebox";
import { operation } from "../../http/operation.js";
import {
  DeliveryView,
  GetDeliveries,
  GetWebhookConfig,
  RetryDeliveries,
  RetryResults,
  RotatedSigningSecret,
  RotateSigningSecret,
  UpdateWebhookConfig,
  WebhookConfigView,
} from "./schemas.js";
import * as service from "./service.js";

const TAG = "Webhooks";

export const webhookOperations = [
  operation({
    path: "/v2/workspace/webhookconfig/update",
    operationId: "webhookConfigUpdate",
    tag: TAG,
    summary: "Update webhook configuration",
    description:
      "Merges into the workspace's webhook configuration (triggers key by key); at least one of the two " +
      "fields. Triggers may be nested (`{comment: {add: true}}` is `comment.add`). The first enable seeds " +
      "the nine comment triggers and `huddle.create`/`huddle.join` true, `crdt.update_data`, `recorder.done` " +
      "and the two suggestion keys false, unless set. Any bad field: " +
      "INVALID_ARGUMENT `Invalid webhook service configuration.` with `details`, nothing changed.",
    data: UpdateWebhookConfig,
    result: Type.Null(),
    example: {
      data: {
        useWebhookService: true,
        webhookServiceConfig: {
          rawNotificationUrl: "https://hooks.example.com/raw",
          processedNotificationUrl: "https://hooks.example.com/processed",
          authToken: "checked-by-your-receiver",
          triggers: { recorder: { done: true } },
          enableDataProtection: false,
          payloadFormat: "basic",
        },
      },
      message: "Webhook configuration updated successfully.",
      result: null,
    },
    handle: async (ctx, data) => {
      await service.updateConfig(ctx, data);
      return { message: "Webhook configuration updated successfully.", data: null };
    },
  }),
  operation({
    path: "/v2/workspace/webhookconfig/get",
    operationId: "webhookConfigGet",
    tag: TAG,
    summary: "Get webhook configuration",
    description:
      'The stored configuration with the auth token masked, and the `whsec_…` signing secret. The body may be left out: none, `{}` and `{"data": {}}` all work. Every field is present; unset strings are `""`.',
    data: GetWebhookConfig,
    bodyOptional: true,
    result: WebhookConfigView,
    example: {
      data: {},
      message: "Webhook configuration retrieved successfully.",
      result: {
        useWebhookService: true,
        webhookServiceConfig: {
          authToken: "****iver",
          rawNotificationUrl: "https://hooks.example.com/raw",
          processedNotificationUrl: "https://hooks.example.com/processed",
          encodeData: false,
          encryptData: false,
          publicKey: "",
          enableDataProtection: false,
          payloadFormat: "basic",
          triggers: {
            ...Object.fromEntries(service.OPT_IN_TRIGGERS.map((key) => [key, false])),
            ...Object.fromEntries(service.DEFAULT_TRIGGERS.map((key) => [key, true])),
            "recorder.done": true,
          },
        },
        signingSecret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      },
    },
    handle: async (ctx) => ({
      message: "Webhook configuration retrieved successfully.",
      data: await service.getConfig(ctx),
    }),
  }),
  operation({
    path: "/v2/workspace/webhooks/deliveries/get",
    operationId: "webhookDeliveriesGet",
    tag: TAG,
    summary: "Get webhook deliveries (extension)",
    description:
      "The delivery log, newest first, keyset-paged: status, attempts with HTTP status and duration, " +
      "next attempt. Filters combine with AND.",
    data: GetDeliveries,
    result: Type.Array(DeliveryView),
    example: {
      data: { status: "failed", pageSize: 20 },
      message: "Webhook deliveries retrieved successfully.",
      result: [
        {
          webhookId: "msg_2mN4yQ8c",
          eventId: "evt_2mN4yQ8c",
          event: "comment.add",
          kind: "raw",
          url: "https://hooks.example.com/raw",
          endpointId: null,
          status: "failed",
          attemptCount: 8,
          lastHttpStatus: 500,
          lastError: null,
          nextAttemptAt: null,
          createdAt: 1767225600000,
          updatedAt: 1767347400000,
          attempts: [{ attempt: 1, startedAt: 1767225600000, durationMs: 42, httpStatus: 500, error: null }],
        },
      ],
      pageToken: "",
    },
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
    operationId: "webhookDeliveriesRetry",
    tag: TAG,
    summary: "Retry webhook deliveries (extension)",
    description:
      "Attempts the given deliveries again now, failed or succeeded ones included, with a fresh retry " +
      "schedule and the same `webhook-id`. Per-id results.",
    data: RetryDeliveries,
    result: RetryResults,
    example: {
      data: { deliveryIds: ["msg_2mN4yQ8c"] },
      message: "Webhook delivery(s) queued for retry.",
      result: { msg_2mN4yQ8c: { success: false, message: "Delivery not found." } },
    },
    handle: async (ctx, data) => ({
      message: "Webhook delivery(s) queued for retry.",
      data: await service.retryDeliveries(ctx, data.deliveryIds),
    }),
  }),
  operation({
    path: "/v2/workspace/webhooks/secret/rotate",
    operationId: "webhookSecretRotate",
    tag: TAG,
    summary: "Rotate the webhook signing secret (extension)",
    description:
      "A new `whsec_…` secret signs from now on; the old one also signs (a second `webhook-signature`) " +
      "until the grace ends, so receivers can switch without rejecting a delivery. As the CLI's " +
      "`collabd webhook rotate-secret`.",
    data: RotateSigningSecret,
    result: RotatedSigningSecret,
    example: {
      data: { graceSeconds: 3600 },
      message: "Webhook signing secret rotated successfully.",
      result: {
        signingSecret: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        previousSigningSecretExpiresAt: 1700003600000,
      },
    },
    handle: async (ctx, data) => ({
      message: "Webhook signing secret rotated successfully.",
      data: await service.rotateSecret(ctx, data.graceSeconds),
    }),
  }),
];
