import { type Static, Type } from "typebox";
import { Closed, named } from "../../http/schemas.js";
import { EVENT_TYPES } from "../../webhooks/endpoints.js";

/** Bounds of what one endpoint stores (docs/webhooks.md "Advanced webhooks"): its settings stay a few KiB. */
export const MAX_URL = 2048;
const MAX_DESCRIPTION = 1024;
const MAX_CHANNELS = 10;
const MAX_CHANNEL = 1024;
const MAX_METADATA_KEYS = 32;
const MAX_METADATA_VALUE = 1024;
export const MAX_RATE_LIMIT = 65_535;
export const MAX_ENDPOINT_PAGE = 250;
export const DEFAULT_ENDPOINT_PAGE = 50;

export const AdvancedWebhookConfig = named(
  "AdvancedWebhookConfig",
  Closed(
    {
      isEnabled: Type.Boolean(),
      encryptData: Type.Boolean(),
      encodeData: Type.Boolean(),
      publicKey: Type.String({ description: 'RSA public key for encryptData; `""` when unset.' }),
      enableDataProtection: Type.Boolean({ description: "Stored and returned only; it changes nothing." }),
    },
    "The workspace's advanced webhook switch and payload format (defaults before the first enable).",
  ),
);

export const GetAdvancedWebhookConfig = Closed({});

export const UpdateAdvancedWebhookConfig = Closed(
  {
    isEnabled: Type.Optional(
      Type.Boolean({ description: "Turns advanced webhooks on or off; the first update must set it true." }),
    ),
    encryptData: Type.Optional(
      Type.Boolean({
        description: "Encrypt payloads with publicKey (AES-256-CBC, RSA-OAEP-SHA-256 key wrap).",
      }),
    ),
    encodeData: Type.Optional(Type.Boolean({ description: "Send `{encodedPayload: base64(JSON)}`." })),
    publicKey: Type.Optional(
      Type.String({
        maxLength: 16_384,
        description: 'RSA ≥ 2048 bits, base64 DER (no PEM armour) or PEM; `""` clears it.',
      }),
    ),
    enableDataProtection: Type.Optional(Type.Boolean({ description: "Stored and returned only." })),
  },
  "At least one field; fields not sent keep their value.",
);

const FilterTypes = Type.Array(Type.Enum([...EVENT_TYPES]), {
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  description: "Event types the endpoint receives; left out: every type. If present, not empty.",
});
const Channels = Type.Array(Type.String({ minLength: 1, maxLength: MAX_CHANNEL }), {
  minItems: 1,
  maxItems: MAX_CHANNELS,
  description:
    "Channels the endpoint receives: an event's channels are its `organizationId` and " +
    "`<organizationId>/<documentId>`. Left out: every channel. If present, not empty.",
});
const Url = Type.String({ minLength: 1, maxLength: MAX_URL, description: "An absolute http(s) URL." });
const Description = Type.String({ maxLength: MAX_DESCRIPTION });
const RateLimit = Type.Integer({
  minimum: 1,
  maximum: MAX_RATE_LIMIT,
  description: "Deliveries per second at most; more are delayed, never dropped.",
});
const Metadata = Type.Record(
  Type.String({ maxLength: 256 }),
  Type.String({ maxLength: MAX_METADATA_VALUE }),
  {
    maxProperties: MAX_METADATA_KEYS,
    description: "String values only.",
  },
);
const Uid = Type.String({
  minLength: 1,
  maxLength: 256,
  pattern: "^(?!ep_)[a-zA-Z0-9\\-_.]+$",
  description: "Your own unique name for the endpoint (letters, digits, `-`, `_`, `.`; not starting `ep_`).",
});
const EndpointRef = Type.String({
  minLength: 1,
  maxLength: 256,
  description: "The endpoint's `id`, or its `uid`.",
});

export const CreateEndpoint = Closed({
  url: Url,
  description: Type.Optional(Description),
  filterTypes: Type.Optional(FilterTypes),
  channels: Type.Optional(Channels),
  disabled: Type.Optional(Type.Boolean({ description: "Default false." })),
  rateLimit: Type.Optional(RateLimit),
  uid: Type.Optional(Uid),
  metadata: Type.Optional(Metadata),
});

export const UpdateEndpoint = Closed(
  {
    endpointId: EndpointRef,
    url: Type.Optional(Url),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    filterTypes: Type.Optional(Type.Union([FilterTypes, Type.Null()])),
    channels: Type.Optional(Type.Union([Channels, Type.Null()])),
    disabled: Type.Optional(Type.Boolean({ description: "false also clears an automatic disable." })),
    rateLimit: Type.Optional(Type.Union([RateLimit, Type.Null()])),
    metadata: Type.Optional(Type.Union([Metadata, Type.Null()])),
  },
  "endpointId and at least one other field; fields not sent keep their value, null clears one.",
);

export const GetEndpoints = Closed({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_ENDPOINT_PAGE,
      description: `Endpoints per page, 1–${MAX_ENDPOINT_PAGE}; default ${DEFAULT_ENDPOINT_PAGE}.`,
    }),
  ),
  iterator: Type.Optional(
    Type.String({ minLength: 1, maxLength: 4096, description: "The `iterator` of the previous page." }),
  ),
});

export const EndpointIdOnly = Closed({ endpointId: EndpointRef });

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const Endpoint = named(
  "AdvancedWebhookEndpoint",
  Closed(
    {
      id: Type.String({ description: "`ep_…`." }),
      url: Type.String(),
      description: Nullable(Type.String()),
      filterTypes: Type.Union([Type.Array(Type.String()), Type.Null()]),
      channels: Type.Union([Type.Array(Type.String()), Type.Null()]),
      disabled: Type.Boolean(),
      rateLimit: Type.Union([Type.Integer(), Type.Null()]),
      uid: Nullable(Type.String()),
      createdAt: Type.String({ description: "ISO 8601." }),
      updatedAt: Type.String({ description: "ISO 8601." }),
      metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
        description: "collabd extra: the metadata set, or null.",
      }),
      disabledReason: Nullable(
        Type.String({
          description:
            "collabd extra: why collabd disabled it (every attempt failed for 5 days); null otherwise.",
        }),
      ),
      failingSince: Nullable(
        Type.String({
          description:
            "collabd extra: ISO 8601 time its current run of failed attempts began; null after a success.",
        }),
      ),
    },
    "An advanced webhook endpoint. Fields never set are null.",
  ),
);

export const EndpointPage = named(
  "AdvancedWebhookEndpointPage",
  Closed({
    endpoints: Type.Array(Endpoint),
    iterator: Type.Union([Type.String(), Type.Null()], {
      description: "Send it back as `iterator` for the next page; null on the last.",
    }),
    prevIterator: Type.Union([Type.String(), Type.Null()], {
      description: "Always null: collabd pages forward only.",
    }),
    done: Type.Boolean({ description: "true on the last page." }),
  }),
);

export const DeletedEndpoint = Closed({ endpointId: Type.String(), deleted: Type.Literal(true) });

export const EndpointSecret = named(
  "AdvancedWebhookEndpointSecret",
  Closed({
    endpointId: Type.String(),
    secret: Type.String({ description: "`whsec_` + base64 key bytes: verifies this endpoint's signatures." }),
  }),
);

export type AdvancedWebhookConfigType = Static<typeof AdvancedWebhookConfig>;
export type UpdateAdvancedWebhookConfigInput = Static<typeof UpdateAdvancedWebhookConfig>;
export type CreateEndpointInput = Static<typeof CreateEndpoint>;
export type UpdateEndpointInput = Static<typeof UpdateEndpoint>;
export type GetEndpointsInput = Static<typeof GetEndpoints>;
export type EndpointType = Static<typeof Endpoint>;
export type EndpointPageType = Static<typeof EndpointPage>;
