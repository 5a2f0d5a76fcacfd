import { type Static, Type } from "typebox";
import { Closed, IdFilter, ItemResult, PageSize, PageToken } from "../../http/schemas.js";

/**
 * The update's fields are typed loosely here and checked by validation.ts, because every
 * bad field must answer `Invalid webhook service configuration.` with details (DESIGN §6),
 * not the generic schema message. The description documents the real shape.
 */
export const UpdateWebhookConfig = Closed({
  useWebhookService: Type.Optional(
    Type.Unknown({ description: "boolean: turns the webhook service on or off." }),
  ),
  webhookServiceConfig: Type.Optional(
    Type.Unknown({
      description:
        "object (SPEC §2.4), merged into the stored configuration: `authToken` (string, sent as " +
        "`Authorization: Basic <authToken>`), `rawNotificationUrl` and `processedNotificationUrl` " +
        "(absolute http(s) URLs), `encodeData` and `encryptData` (booleans), `publicKey` (RSA ≥ 2048 " +
        "bits, base64 DER or PEM; required when encryptData is true), `triggers` (event key to " +
        'boolean, merged key by key). A string field set to `""` is cleared.',
    }),
  ),
});

export const GetWebhookConfig = Closed({});

export const WebhookConfigView = Type.Object({
  useWebhookService: Type.Boolean(),
  webhookServiceConfig: Type.Object({
    authToken: Type.Optional(
      Type.String({ description: "Masked: only the last four characters are shown." }),
    ),
    rawNotificationUrl: Type.Optional(Type.String()),
    processedNotificationUrl: Type.Optional(Type.String()),
    encodeData: Type.Boolean(),
    encryptData: Type.Boolean(),
    publicKey: Type.Optional(Type.String()),
    triggers: Type.Record(Type.String(), Type.Boolean()),
  }),
  signingSecret: Type.String({
    description: "The `whsec_…` secret that signs deliveries (Standard Webhooks).",
  }),
  previousSigningSecretExpiresAt: Type.Optional(
    Type.Integer({ description: "While a rotation's grace lasts, the old secret also signs until then." }),
  ),
});

export const DELIVERY_STATUSES = ["pending", "delivering", "succeeded", "failed"] as const;

export const GetDeliveries = Closed({
  status: Type.Optional(Type.Enum([...DELIVERY_STATUSES])),
  event: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "e.g. `comment.add`." })),
  deliveryIds: Type.Optional(IdFilter("Fetch these deliveries (their `webhookId`).")),
  includePayload: Type.Optional(
    Type.Boolean({ description: "Add each delivery's `payload` (as sent, before encoding); default false." }),
  ),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const RetryDeliveries = Closed({
  deliveryIds: IdFilter("Deliveries (`webhookId`) to attempt again now, with a fresh retry schedule."),
});

const Attempt = Type.Object({
  attempt: Type.Integer(),
  startedAt: Type.Integer(),
  durationMs: Type.Integer(),
  httpStatus: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});

export const DeliveryView = Type.Object({
  webhookId: Type.String(),
  eventId: Type.String(),
  event: Type.String(),
  kind: Type.Enum(["raw", "processed"]),
  url: Type.String(),
  status: Type.Enum([...DELIVERY_STATUSES]),
  attemptCount: Type.Integer(),
  lastHttpStatus: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  nextAttemptAt: Type.Union([Type.Integer(), Type.Null()]),
  createdAt: Type.Integer(),
  updatedAt: Type.Integer(),
  attempts: Type.Array(Attempt),
  payload: Type.Optional(
    Type.Unknown({
      description: "With includePayload: the JSON sent (without `webhookId`), before encodeData/encryptData.",
    }),
  ),
});

export const RetryResults = Type.Record(Type.String(), ItemResult, { description: "Keyed by delivery id." });

export type GetDeliveriesInput = Static<typeof GetDeliveries>;
export type DeliveryViewType = Static<typeof DeliveryView>;
export type WebhookConfigViewType = Static<typeof WebhookConfigView>;
