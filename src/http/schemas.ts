import { type Static, type TSchema, Type } from "typebox";
import { LIMIT_CEILINGS } from "../config.js";

/**
 * Schema building blocks shared by every area. One schema validates the request,
 * types the handler and documents the operation in OpenAPI (docs/architecture.md "Conventions").
 */

/**
 * How a schema appears in `/openapi.json` when that differs from what the request
 * validator needs (src/http/openapi-document.ts reads these; Ajv never sees symbol keys).
 */
export const DOC_NAME = Symbol("collabd.openapi.name");
export const DOC_AS = Symbol("collabd.openapi.as");

/** Documents `schema` once, as `components.schemas[name]`, and refers to it everywhere it is used. */
export const named = <T extends TSchema>(name: string, schema: T): T => {
  (schema as Record<symbol, unknown>)[DOC_NAME] = name;
  return schema;
};

/**
 * Documents `schema` as `doc` instead: for values the route checks loosely on purpose (so a
 * service can answer its own message) and cross-field rules the validator leaves to the service.
 * `doc` must accept exactly what the service accepts.
 */
export const documentedAs = <T extends TSchema>(schema: T, doc: TSchema): T => {
  (schema as Record<symbol, unknown>)[DOC_AS] = doc;
  return schema;
};

/** Documents `schema` with extra keywords (cross-field rules the service checks with its own messages). */
export const documentedWith = <T extends TSchema>(schema: T, extra: Record<string, unknown>): T =>
  documentedAs(schema, { ...Object.fromEntries(Object.entries(schema)), ...extra } as TSchema);

/** Exactly one of the shapes (documentation of disjoint shapes; `Type.Union` emits `anyOf`). */
export const OneOf = <T extends TSchema[]>(schemas: [...T], description: string) =>
  Type.Unsafe<Static<T[number]>>({ oneOf: schemas, description });

/** Any JSON value, documented as the recursive `JsonValue` (a typed client gets no `unknown`). */
export const JSON_VALUE_REF = { $ref: "#/components/schemas/JsonValue" } as const;

/** `{field?, id?, message}` (src/http/openapi-document.ts defines it with the error responses). */
export const ERROR_DETAIL_REF = { $ref: "#/components/schemas/ErrorDetail" } as const;

/**
 * Client-given ids (docs/contract.md "Ids and time"): 1–256 characters, no control characters, and no unpaired
 * surrogate (not a character: stored as U+FFFD, so two such ids would collide).
 */
export const ID_PATTERN = "^[^\\u0000-\\u001F\\u007F\\uD800-\\uDFFF]*$";

/**
 * A JSON Schema keyword of collabd's own: a string's most bytes in UTF-8 (byte-limits.ts
 * teaches it to the request validator; the OpenAPI document shows it as an `x-` extension).
 */
export const MAX_BYTES = "x-maxBytes";

/**
 * Client-given ids are also bounded in bytes: a PostgreSQL index entry holds at most 2704
 * bytes, and the widest indexes hold three client ids (a membership: organization, level
 * id, user) beside the workspace id and a short kind. 768 bytes lets 256 characters of up
 * to three bytes each (every script of the BMP) and leaves the entry about 300 bytes of room;
 * both dialects refuse the same ids (docs/decisions.md).
 */
export const MAX_ID_BYTES = 768;

/** The keywords that bound an id: spread into any id-like string schema not built with `Id`. */
export const ID_BOUNDS = { maxLength: 256, pattern: ID_PATTERN, [MAX_BYTES]: MAX_ID_BYTES } as const;

export const Id = (description?: string) =>
  Type.String({ minLength: 1, ...ID_BOUNDS, ...(description ? { description } : {}) });

/** A non-empty string of bounded size for free text such as templates. */
export const Text = (description?: string, maxLength = 65_536) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

/** An object whose keys are the client's own (open objects: docs/contract.md "Requests"). */
export const FreeObject = (description?: string) =>
  documentedAs(
    Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) }),
    Type.Unsafe({
      type: "object",
      additionalProperties: JSON_VALUE_REF,
      ...(description ? { description } : {}),
    }),
  );

/** Any JSON value (snapshots such as `entityData`). */
export const AnyValue = (description?: string) =>
  documentedAs(
    Type.Unknown(description ? { description } : {}),
    Type.Unsafe({ ...JSON_VALUE_REF, ...(description ? { description } : {}) }),
  );

/** A closed object: unknown fields are rejected, naming the field (docs/contract.md "Requests"). */
export const Closed = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

/** Marks an array schema as an array filter, whose ceiling COLLABD_MAX_FILTER_VALUES lowers (limits.ts). */
export const FILTER = Symbol.for("collabd.filter");

/** Array filters match any listed value; at most 100 values (docs/contract.md "Lists and page tokens", "Limits"). */
export const Filter = <T extends TSchema>(items: T, description?: string) =>
  Object.assign(
    Type.Array(items, {
      minItems: 1,
      maxItems: LIMIT_CEILINGS.filterValues,
      ...(description ? { description } : {}),
    }),
    { [FILTER]: true },
  );

export const IdFilter = (description: string) => Filter(Id(), description);

/**
 * Items per batch array (docs/contract.md "Limits"): every array whose schema states this ceiling is a
 * batch, which COLLABD_MAX_BATCH_ITEMS lowers (limits.ts).
 */
export const MAX_ITEMS = LIMIT_CEILINGS.batchItems;

/**
 * Numeric ranges both dialects store alike (docs/decisions.md, "Transport abuse"): integers
 * within ±(2^53 − 1), which a JavaScript number holds exactly (a larger one would be rounded
 * before it reached either database); epoch-millisecond timestamps up to the end of year
 * 9999; durations up to ten years.
 */
export const MAX_INTEGER = Number.MAX_SAFE_INTEGER;
export const MAX_TIMESTAMP_MS = 253_402_300_799_999;
export const MAX_DURATION_MS = 10 * 365.25 * 24 * 3_600_000;

/** The request envelope `{"data": {...}}`. */
export const Envelope = <T extends TSchema>(data: T) => Closed({ data });

export const PageSize = Type.Integer({
  minimum: 1,
  maximum: MAX_INTEGER,
  description: "Items per page; default 1000; values above 1000 are treated as 1000.",
});

export const PageToken = Type.String({
  maxLength: 4096,
  description: "Opaque token from a previous response's `result.pageToken`.",
});

/** The success envelope; list operations carry `pageToken` (`""` on the last page). */
export const Success = <T extends TSchema>(
  data: T,
  options: {
    list?: boolean;
    nextPageToken?: boolean;
    topLevel?: Readonly<Record<string, TSchema>>;
    resultExtras?: Readonly<Record<string, TSchema>>;
    /** The answer has no `data` key (Operation.withoutData). */
    withoutData?: boolean;
  } = {},
) =>
  Closed({
    ...options.topLevel,
    result: Closed({
      status: Type.Literal("success"),
      message: Type.String(),
      ...(options.withoutData ? {} : { data }),
      ...(options.list ? { pageToken: Type.String() } : {}),
      ...(options.nextPageToken
        ? {
            nextPageToken: Type.Union([Type.String(), Type.Null()], {
              description: "The original's name for `pageToken`: the same token, null on the last page.",
            }),
          }
        : {}),
      ...options.resultExtras,
    }),
  });

/** Per-item outcome used by update, delete and folder add (docs/contract.md "Per-item outcomes"). */
export const ItemResult = named(
  "ItemResult",
  Closed(
    {
      success: Type.Boolean(),
      message: Type.String(),
      details: Type.Optional(
        Type.Array(Type.Unsafe<{ field?: string; id?: string; message: string }>(ERROR_DETAIL_REF), {
          description: "Per-user or per-field notes, e.g. users not marked read for lack of access.",
        }),
      ),
    },
    "One item's outcome.",
  ),
);

/** Per-item outcomes keyed by the item's id. */
export const ItemResults = (description: string) => Type.Record(Type.String(), ItemResult, { description });

/** An add's per-item outcome that names the item (organizations, folders, documents). */
export const AddedItem = named(
  "AddedItem",
  Closed({ success: Type.Boolean(), id: Type.String(), message: Type.String() }, "One item's outcome."),
);

/** `{success: true, message}`: a whole-request add that has nothing else to say. */
export const Acknowledgement = named(
  "Acknowledgement",
  Closed({ success: Type.Boolean(), message: Type.String() }, "The request was applied."),
);

/** `result.deletedCount` beside a delete's per-item map (an extra: docs/contract.md "Per-item outcomes"). */
export const DELETED_COUNT = Type.Integer({ minimum: 0, description: "How many records were deleted." });

export const DeletedCount = named(
  "DeletedCount",
  Closed({ deletedCount: Type.Integer({ minimum: 0 }) }, "How many records were deleted."),
);

/** Where a document-scoped record lives (activities, recordings). */
export const RecordMetadata = named(
  "RecordMetadata",
  Closed(
    { apiKey: Type.String(), documentId: Type.String(), organizationId: Type.String() },
    "Where it lives.",
  ),
);
