import type { Ajv, ErrorObject } from "ajv";
import { MAX_BYTES } from "./schemas.js";

type Validate = ((limit: number, data: string) => boolean) & { errors?: Partial<ErrorObject>[] };

/** Checks `x-maxBytes`; its error carries `limit` like `maxLength`'s. */
const maxBytes: Validate = (limit, data) => {
  if (Buffer.byteLength(data, "utf8") <= limit) return true;
  maxBytes.errors = [{ keyword: MAX_BYTES, params: { limit } }];
  return false;
};

/**
 * Teaches the request validator `x-maxBytes` (schemas.ts): a string's most bytes in UTF-8,
 * which JSON Schema's `maxLength` (characters) cannot say, so the formatter names the field
 * and the bound (errors.ts).
 */
export function byteLimits(ajv: Ajv): Ajv {
  return ajv.addKeyword({
    keyword: MAX_BYTES,
    type: "string",
    schemaType: "number",
    errors: true,
    validate: maxBytes,
  });
}
