import { Counter, Gauge, type Registry } from "prom-client";
import type { TSchema } from "typebox";
import { type Config, LIMIT_CEILINGS } from "../config.js";
import { type ApiError, unavailable } from "../errors.js";
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

/**
 * Memory admission (docs/decisions.md, "Memory admission"): the request body bytes one
 * process holds at once — read, parsed, and alive until the answer is sent — are capped.
 * A body that would pass the cap is refused at once with 503 and `Retry-After`, before it
 * is read: by its Content-Length, or, chunked, as soon as its streamed bytes would pass it.
 * A body is always admitted when no other is in flight, so a cap below the body limit
 * cannot starve a lone large request.
 */
export class BodyAdmission {
  private inFlight = 0;
  /** Refusals so far (metrics, tests). */
  refused = 0;

  constructor(readonly cap: number) {}

  get bytesInFlight(): number {
    return this.inFlight;
  }

  /** A reservation for one request's body: grown as bytes are declared or arrive, released once. */
  open(): BodyReservation {
    let held = 0;
    let released = false;
    return {
      take: (bytes) => {
        if (released || bytes <= 0) return true;
        if (this.inFlight > held && this.inFlight + bytes > this.cap) {
          this.refused += 1;
          return false;
        }
        this.inFlight += bytes;
        held += bytes;
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        this.inFlight -= held;
        held = 0;
      },
    };
  }
}

export interface BodyReservation {
  /** Adds `bytes` to the reservation; false (nothing added) when the process is at its cap. */
  take(bytes: number): boolean;
  release(): void;
}

/** Seconds a refused client is asked to wait: bodies in flight are answered within about that. */
const BODY_RETRY_AFTER_S = 1;

/** The refusal of a body past the cap: 503 UNAVAILABLE, answered with `Retry-After`. */
export function bodiesInFlight(cap: number): ApiError {
  return unavailable(
    `The server is holding its limit of ${cap} request body bytes in flight (COLLABD_BODY_BYTES_IN_FLIGHT); try again shortly.`,
    BODY_RETRY_AFTER_S,
  );
}

/** The admission's state on `/metrics` (summed over processes with several workers). */
export function registerAdmissionMetrics(registry: Registry, admission: BodyAdmission): void {
  new Gauge({
    name: "collabd_request_body_bytes_in_flight",
    help: "Request body bytes held (reserved by Content-Length or as they stream in) until answered.",
    registers: [registry],
    collect() {
      this.set(admission.bytesInFlight);
    },
  });
  new Counter({
    name: "collabd_request_bodies_refused_total",
    help: "Request bodies refused with 503 before being read: the process held COLLABD_BODY_BYTES_IN_FLIGHT.",
    registers: [registry],
    collect() {
      this.reset();
      this.inc(admission.refused);
    },
  });
}
