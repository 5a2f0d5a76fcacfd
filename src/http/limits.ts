import type { TSchema } from "typebox";
import { type Config, LIMIT_CEILINGS } from "../config.js";
import { FILTER, MAX_ITEMS } from "./schemas.js";

/**
 * The request limits (docs/contract.md "Limits") as configured. The request schemas state the ceilings (the
 * defaults, which the OpenAPI document publishes); a deployment may lower them
 * (COLLABD_MAX_BATCH_ITEMS, COLLABD_MAX_FILTER_VALUES). Rather than a second check in
 * every verb, each operation's body schema is copied once at start-up with the
 * configured `maxItems`, so Ajv enforces it and the usual formatter names the field:
 * `data.activities must hold at most 10 items.` With the defaults the schemas are used
 * as they are.
 */
export function withLimits<T extends TSchema>(schema: T, config: Config): T {
  if (config.maxBatchItems === MAX_ITEMS && config.maxFilterValues === LIMIT_CEILINGS.filterValues)
    return schema;
  return lowered(schema, config) as T;
}

function lowered(node: unknown, config: Config): unknown {
  if (Array.isArray(node)) {
    const copy = node.map((item) => lowered(item, config));
    return copy.some((item, i) => item !== node[i]) ? copy : node;
  }
  if (node === null || typeof node !== "object") return node;
  const schema = node as Record<string | symbol, unknown>;
  let copy: Record<string | symbol, unknown> | null = null;
  const set = (key: string | symbol, value: unknown) => {
    if (value === schema[key]) return;
    copy ??= { ...schema };
    copy[key] = value;
  };
  for (const key of Object.keys(schema)) set(key, lowered(schema[key], config));
  if (schema.type === "array" && typeof schema.maxItems === "number") {
    if (schema[FILTER] === true) set("maxItems", Math.min(schema.maxItems, config.maxFilterValues));
    else if (schema.maxItems === MAX_ITEMS) set("maxItems", config.maxBatchItems);
  }
  return copy ?? node;
}
