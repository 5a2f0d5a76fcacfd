import { type TSchema, Type } from "typebox";
import { LIMIT_CEILINGS } from "../config.js";

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

/** Marks an array schema as an array filter, whose ceiling COLLABD_MAX_FILTER_VALUES lowers (limits.ts). */
export const FILTER = Symbol.for("collabd.filter");

/** Array filters match any listed value; at most 100 values (DESIGN §4, §7). */
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
 * Items per batch array (DESIGN §7): every array whose schema states this ceiling is a
 * batch, which COLLABD_MAX_BATCH_ITEMS lowers (limits.ts).
 */
export const MAX_ITEMS = LIMIT_CEILINGS.batchItems;

/** The request envelope `{"data": {...}}`. */
export const Envelope = <T extends TSchema>(data: T) => Closed({ data });

export const PageSize = Type.Integer({
  minimum: 1,
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
