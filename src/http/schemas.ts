import { type TSchema, Type } from "typebox";

/**
 * Schema building blocks shared by every area. One schema validates the request,
 * types the handler and documents the operation in OpenAPI (STYLE §2).
 */

/**
 * Client-given ids (DESIGN §3): 1–256 characters, no control characters, and no unpaired
 * surrogate (not a character: stored as U+FFFD, so two such ids would collide).
 */
export const ID_PATTERN = "^[^\\u0000-\\u001F\\u007F\\uD800-\\uDFFF]*$";

export const Id = (description?: string) =>
  Type.String({ minLength: 1, maxLength: 256, pattern: ID_PATTERN, ...(description ? { description } : {}) });

/** A non-empty string of bounded size for free text such as templates. */
export const Text = (description?: string, maxLength = 65_536) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

/** An object whose keys are the client's own (DESIGN §2 free-form values). */
export const FreeObject = (description?: string) =>
  Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) });

/** Any JSON value (snapshots such as `entityData`). */
export const AnyValue = (description?: string) => Type.Unknown(description ? { description } : {});

/** A closed object: unknown fields are rejected, naming the field (DESIGN §2). */
export const Closed = <T extends Record<string, TSchema>>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

/** Array filters match any listed value; at most 100 values (DESIGN §4). */
export const IdFilter = (description: string) =>
  Type.Array(Id(), { minItems: 1, maxItems: 100, description });

export const MAX_ITEMS = 1000;

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
export const Success = <T extends TSchema>(data: T, options: { list?: boolean } = {}) =>
  Closed({
    result: Closed({
      status: Type.Literal("success"),
      message: Type.String(),
      data,
      ...(options.list ? { pageToken: Type.String() } : {}),
    }),
  });

export const ErrorBody = Closed(
  {
    error: Closed({
      status: Type.String({ description: "Canonical status, e.g. INVALID_ARGUMENT." }),
      message: Type.String(),
      details: Type.Optional(
        Type.Array(
          Type.Object({
            field: Type.Optional(Type.String()),
            id: Type.Optional(Type.String()),
            message: Type.String(),
          }),
        ),
      ),
    }),
  },
  "Failure: canonical status and a message; `details` names fields or items.",
);

/** Per-item outcome used by update, delete and folder add (SPEC §7.2). */
export const ItemResult = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  details: Type.Optional(Type.Unknown()),
});
