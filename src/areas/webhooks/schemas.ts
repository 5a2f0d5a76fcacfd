import { type Static, type TSchema, Type } from "typebox";
import {
  Closed,
  documentedAs,
  IdFilter,
  ItemResults,
  JSON_VALUE_REF,
  named,
  PageSize,
  PageToken,
} from "../../http/schemas.js";
import { MAX_GRACE_MS, PAYLOAD_FORMATS } from "../../webhooks/settings.js";

/**
 * The update's fields are typed loosely here and checked by validation.ts, because every
 * bad field must answer `Invalid webhook service configuration.` with details (docs/webhooks.md "Configure"),
 * not the generic schema message. The document shows the real shape (WebhookServiceConfigPatch).
 */
export const UpdateWebhookConfig = documentedAs(
  Closed({
    useWebhookService: Type.Optional(
      Type.Unknown({ description: "boolean: turns the webhook service on or off." }),
    ),
    webhookServiceConfig: Type.Optional(
      Type.Unknown({ description: "object, merged into the stored configuration." }),
    ),
  }),
  Type.Unsafe({
    ...Closed(
      {
        useWebhookService: Type.Optional(
          Type.Boolean({ description: "Turns the webhook service on or off." }),
        ),
        webhookServiceConfig: Type.Optional(named("WebhookServiceConfigPatch", WebhookServiceConfigPatch())),
      },
      "At least one of the two fields. Any bad field answers `Invalid webhook service configuration.` " +
        "with details naming every bad field.",
    ),
    minProperties: 1,
  }),
);

/** A string field of the configuration: `""` or null clears the stored value. */
function Clearable(maxLength: number, description: string) {
  return Type.Union([Type.String({ maxLength }), Type.Null()], {
    description: `${description} \`""\` or null clears it.`,
  });
}

/** Trigger keys nested `depth` more levels (documented to three; validation.ts takes up to eight). */
function NestedTriggers(depth: number): TSchema {
  const leaf = depth <= 1 ? Type.Boolean() : Type.Union([Type.Boolean(), NestedTriggers(depth - 1)]);
  return Type.Record(Type.String(), leaf);
}

/** What validation.ts accepts, for the document. */
function WebhookServiceConfigPatch() {
  return Closed(
    {
      authToken: Type.Optional(
        Clearable(1024, "Sent as `Authorization: Basic <authToken>`; printable ASCII."),
      ),
      rawNotificationUrl: Type.Optional(Clearable(2048, "Absolute http(s) URL for raw events.")),
      processedNotificationUrl: Type.Optional(Clearable(2048, "Absolute http(s) URL for processed events.")),
      encodeData: Type.Optional(Type.Boolean({ description: "Send `{encodedPayload: base64(JSON)}`." })),
      encryptData: Type.Optional(Type.Boolean({ description: "Encrypt payloads; needs publicKey." })),
      publicKey: Type.Optional(Clearable(16_384, "RSA ≥ 2048 bits, base64 DER or PEM.")),
      triggers: Type.Optional(
        Type.Record(Type.String(), Type.Union([Type.Boolean(), NestedTriggers(2)]), {
          description:
            "Event key to boolean, merged key by key. Nested objects are accepted: " +
            '`{"comment": {"add": true}}` is the key `comment.add`; stored flat.',
        }),
      ),
      enableDataProtection: Type.Optional(
        Type.Boolean({ description: "Stored and returned; no effect in collabd. Default false." }),
      ),
      payloadFormat: Type.Optional(
        Type.Enum([...PAYLOAD_FORMATS], {
          description: "Shape of raw payloads: `basic` (default) or `advanced`.",
        }),
      ),
    },
    "Fields merged into the stored configuration.",
  );
}

/** Get takes nothing; `{}` and `{"data": {}}` bodies, or none, all work (docs/contract.md "Webhook configuration"). */
export const GetWebhookConfig = Closed({});

export const WebhookConfigView = named(
  "WebhookConfig",
  Closed(
    {
      useWebhookService: Type.Boolean(),
      webhookServiceConfig: Closed({
        authToken: Type.String({
          description: 'Masked: only the last four characters are shown; `""` when unset.',
        }),
        rawNotificationUrl: Type.String({ description: '`""` when unset.' }),
        processedNotificationUrl: Type.String({ description: '`""` when unset.' }),
        encodeData: Type.Boolean(),
        encryptData: Type.Boolean(),
        publicKey: Type.String({ description: '`""` when unset.' }),
        enableDataProtection: Type.Boolean({ description: "Stored only; it changes nothing." }),
        payloadFormat: Type.Enum([...PAYLOAD_FORMATS]),
        triggers: Type.Record(Type.String(), Type.Boolean()),
      }),
      signingSecret: Type.String({
        description: "The `whsec_…` secret that signs deliveries (Standard Webhooks).",
      }),
      previousSigningSecretExpiresAt: Type.Optional(
        Type.Integer({
          description: "While a rotation's grace lasts, the old secret also signs until then.",
        }),
      ),
    },
    "The workspace's webhook configuration.",
  ),
);

/** The CLI's `--grace` bound, so both ways to rotate accept the same range. */
export const MAX_GRACE_SECONDS = MAX_GRACE_MS / 1000;
export const DEFAULT_GRACE_SECONDS = 86_400;

export const RotateSigningSecret = Closed({
  graceSeconds: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_GRACE_SECONDS,
      description:
        "How long the old secret keeps signing too, in seconds (at most 30 days); default 86400 " +
        "(24 h). 0 stops it at once.",
    }),
  ),
});

export const RotatedSigningSecret = named(
  "RotatedSigningSecret",
  Closed(
    {
      signingSecret: Type.String({ description: "The new `whsec_…` secret; it signs from now on." }),
      previousSigningSecretExpiresAt: Type.Union([Type.Integer(), Type.Null()], {
        description: "Until then (ms since the epoch) the old secret also signs; null with graceSeconds 0.",
      }),
    },
    "The new signing secret, as webhookconfig/get shows it.",
  ),
);

export const DELIVERY_STATUSES = ["pending", "delivering", "succeeded", "failed"] as const;

export const GetDeliveries = Closed({
  status: Type.Optional(Type.Enum([...DELIVERY_STATUSES])),
  event: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: "e.g. `comment.add`." })),
  deliveryIds: Type.Optional(IdFilter("Fetch these deliveries (their `webhookId`).")),
  endpointId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description: "Only the deliveries to this advanced webhook endpoint (its `id`).",
    }),
  ),
  includePayload: Type.Optional(
    Type.Boolean({ description: "Add each delivery's `payload` (as sent, before encoding); default false." }),
  ),
  pageSize: Type.Optional(PageSize),
  pageToken: Type.Optional(PageToken),
});

export const RetryDeliveries = Closed({
  deliveryIds: IdFilter("Deliveries (`webhookId`) to attempt again now, with a fresh retry schedule."),
});

const Attempt = named(
  "DeliveryAttempt",
  Closed(
    {
      attempt: Type.Integer(),
      startedAt: Type.Integer(),
      durationMs: Type.Integer(),
      httpStatus: Type.Union([Type.Integer(), Type.Null()]),
      error: Type.Union([Type.String(), Type.Null()]),
    },
    "One attempt to deliver.",
  ),
);

export const DeliveryView = named(
  "WebhookDelivery",
  Closed(
    {
      webhookId: Type.String(),
      eventId: Type.String(),
      event: Type.String(),
      kind: Type.Enum(["raw", "processed", "advanced"], {
        description:
          "`raw` or `processed`: one of the configuration's two URLs; `advanced`: an advanced webhook endpoint.",
      }),
      url: Type.String(),
      endpointId: Type.Union([Type.String(), Type.Null()], {
        description: "The advanced webhook endpoint it goes to (`kind` `advanced`); null for the two URLs.",
      }),
      status: Type.Enum([...DELIVERY_STATUSES]),
      attemptCount: Type.Integer(),
      lastHttpStatus: Type.Union([Type.Integer(), Type.Null()]),
      lastError: Type.Union([Type.String(), Type.Null()]),
      nextAttemptAt: Type.Union([Type.Integer(), Type.Null()]),
      createdAt: Type.Integer(),
      updatedAt: Type.Integer(),
      attempts: Type.Array(Attempt),
      payload: Type.Optional(
        documentedAs(
          Type.Unknown(),
          Type.Unsafe({
            ...JSON_VALUE_REF,
            description:
              "With includePayload: the JSON sent (without `webhookId`), before encodeData/encryptData.",
          }),
        ),
      ),
    },
    "One event's delivery to one URL or advanced webhook endpoint.",
  ),
);

export const RetryResults = ItemResults("Keyed by delivery id.");

export type GetDeliveriesInput = Static<typeof GetDeliveries>;
export type DeliveryViewType = Static<typeof DeliveryView>;
export type WebhookConfigViewType = Static<typeof WebhookConfigView>;
export type RotatedSigningSecretType = Static<typeof RotatedSigningSecret>;
