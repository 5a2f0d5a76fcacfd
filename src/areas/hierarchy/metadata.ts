import { type Static, type TObject, type TProperties, Type } from "typebox";
import type { Ctx } from "../../context.js";
import { invalidArgument } from "../../errors.js";
import { documentedAs, JSON_VALUE_REF } from "../../http/schemas.js";
import { checkRecordSize } from "../../lib/bounds.js";

/**
 * Organization and document items are open (docs/contract.md "Organizations", "Documents", "The User object"): the known fields are
 * type-checked, every other key is metadata, stored verbatim as one JSON object and
 * returned at the top level of the record. Keys the service sets itself are refused
 * (they would be shadowed on the way out); the stored JSON is bounded like any record.
 */
export const OpenItem = <T extends TProperties>(properties: T, description: string) =>
  documentedAs(
    Type.Unsafe<Static<TObject<T>> & { [key: string]: unknown }>(
      Type.Object(properties, { additionalProperties: true, description }),
    ),
    Type.Unsafe({
      ...Type.Object(properties),
      additionalProperties: JSON_VALUE_REF,
      description,
    }),
  );

export type Metadata = Record<string, unknown>;

/**
 * The item's metadata (its keys beyond `known`), or INVALID_ARGUMENT naming `field` and
 * the key when it holds a reserved key or is larger than a record may be.
 */
export function metadataOf(
  ctx: Ctx,
  item: Record<string, unknown>,
  known: readonly string[],
  reserved: readonly string[],
  field: string,
): Metadata {
  const metadata: Metadata = {};
  for (const [key, value] of Object.entries(item)) {
    if (known.includes(key)) continue;
    if (reserved.includes(key)) {
      const at = `${field}.${key}`;
      throw invalidArgument(`${at} is set by the service and cannot be stored as metadata.`, [
        { field: at, message: "Reserved key." },
      ]);
    }
    metadata[key] = value;
  }
  checkRecordSize(ctx.config, JSON.stringify(metadata), field);
  return metadata;
}

/** Stored form: null when there is none, so 0.1 rows and items without extras read alike. */
export function storedMetadata(metadata: Metadata): string | null {
  return Object.keys(metadata).length === 0 ? null : JSON.stringify(metadata);
}

export function parseMetadata(text: string | null): Metadata {
  return text === null ? {} : (JSON.parse(text) as Metadata);
}
