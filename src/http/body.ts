import { isUtf8 } from "node:buffer";
import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import type { FastifyInstance } from "fastify";
import secureJson from "secure-json-parse";
import { ApiError, invalidArgument } from "../errors.js";
import { BodyAdmission, type BodyReservation, bodiesInFlight } from "./limits.js";

/**
 * The request body: JSON only, read by us rather than by Fastify's parser so that
 * - the bytes of bodies in flight are capped per process (BodyAdmission, limits.ts): past
 *   the cap a body is refused with 503 and `Retry-After` before it is read (then dropped);
 * - a body over the limit is still read (and dropped) up to twice the limit before the 413
 *   is sent: a client such as `fetch` that is still sending when the socket closes sees
 *   EPIPE, never the answer;
 * - bytes that are not UTF-8 are refused instead of folded to U+FFFD (two different byte
 *   strings would become the same id);
 * - numbers JSON.parse turns into ±Infinity (`1e309`) are refused anywhere in the body,
 *   naming the field, instead of being stored as `null`;
 * - a `__proto__`/`constructor` key gets its own message (secure-json-parse).
 */
export function registerJsonParser(
  app: FastifyInstance,
  bodyLimit: number,
  inFlightCap: number,
): BodyAdmission {
  app.removeAllContentTypeParsers();
  const admission = new BodyAdmission(inFlightCap);
  const reservations = new WeakMap<IncomingMessage, BodyReservation>();
  // Before the body is read (authentication and the content type were checked already):
  // a declared body past the process's cap is refused here, answered before it is read. The
  // connection stays open and Node reads the declared rest and drops it, holding nothing, as
  // for any refusal before a bounded body (app.ts): closed instead, a client still sending it
  // (fetch) met a reset and never saw the 503 (RELIABILITY.md "Work budgets").
  app.addHook("preParsing", async (request, reply, payload) => {
    const reservation = admission.open();
    reply.raw.once("close", reservation.release);
    const declared = Number(request.headers["content-length"]);
    // A body declared past the limit is refused by readBody, never held: nothing to reserve.
    if (declared > 0 && declared <= bodyLimit && !reservation.take(declared))
      throw bodiesInFlight(inFlightCap);
    if (!(declared >= 0)) reservations.set(request.raw, reservation);
    return payload;
  });
  app.addContentTypeParser("application/json", (request, payload, done) => {
    // A chunked body reserves its bytes as they arrive.
    const streamed = reservations.get(request.raw);
    const admit = streamed ? (bytes: number) => streamed.take(bytes) || bodiesInFlight(inFlightCap) : null;
    readBody(payload, request.headers, bodyLimit, admit, (error, body) => {
      if (error) return done(error, undefined);
      // An operation whose body may be left out takes an empty one as `{"data": {}}` (operation.ts).
      if (body!.length === 0 && (request.routeOptions.config as { bodyOptional?: boolean }).bodyOptional)
        return done(null, { data: {} });
      try {
        done(null, parseJson(body!));
      } catch (parseError) {
        done(parseError as Error, undefined);
      }
    });
  });
  return admission;
}

export function bodyTooLarge(bodyLimit: number): ApiError {
  return new ApiError(
    "RESOURCE_EXHAUSTED",
    `The request body exceeds the ${bodyLimit}-byte limit.`,
    undefined,
    413,
  );
}

/** How much of an oversized body is read and dropped before answering 413 anyway. */
export const drainLimit = (bodyLimit: number) => 2 * bodyLimit;

/**
 * True when answering now would leave more than `drainLimit` bytes of body unread (or an
 * unknown amount: chunked): such a connection is closed after the answer rather than read on.
 */
export function bodyUnbounded(headers: IncomingHttpHeaders, bodyLimit: number): boolean {
  const declared = headers["content-length"];
  if (declared === undefined) return headers["transfer-encoding"] !== undefined;
  return Number(declared) > drainLimit(bodyLimit);
}

function readBody(
  payload: Readable,
  headers: IncomingHttpHeaders,
  bodyLimit: number,
  admit: ((bytes: number) => true | Error) | null,
  callback: (error: Error | null, body?: Buffer) => void,
): void {
  const declared = Number(headers["content-length"]);
  // Declared beyond what we are willing to drain: answer at once (the connection is closed).
  if (declared > drainLimit(bodyLimit)) {
    callback(bodyTooLarge(bodyLimit));
    return;
  }
  const chunks: Buffer[] = [];
  let received = 0;
  let over = false;
  const finish = (error: Error | null) => {
    payload.removeListener("data", onData);
    payload.removeListener("end", onEnd);
    payload.removeListener("error", onError);
    if (error) callback(error);
    else callback(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
  };
  const onData = (chunk: Buffer) => {
    if (!over && admit) {
      const refused = admit(chunk.length);
      if (refused !== true) return finish(refused);
    }
    received += chunk.length;
    if (received > bodyLimit) {
      over = true;
      chunks.length = 0;
      if (received > drainLimit(bodyLimit)) finish(bodyTooLarge(bodyLimit));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => finish(over ? bodyTooLarge(bodyLimit) : null);
  const onError = (error: Error & { statusCode?: number }) => {
    if (!(typeof error.statusCode === "number" && error.statusCode >= 400)) error.statusCode = 400;
    finish(error);
  };
  payload.on("data", onData);
  payload.on("end", onEnd);
  payload.on("error", onError);
  payload.resume();
}

/** Parses a complete body; throws INVALID_ARGUMENT with the reason. */
export function parseJson(body: Buffer): unknown {
  if (body.length === 0) throw invalidArgument("The request body must be a JSON object with a data object.");
  if (!isUtf8(body)) throw invalidArgument("The request body is not valid UTF-8.");
  const text = body.toString("utf8");
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: "error", constructorAction: "error" });
  } catch (error) {
    const forbidden = /prototype/.test((error as Error).message);
    throw invalidArgument(
      forbidden
        ? "The request body contains a forbidden key (__proto__ or constructor)."
        : "The request body is not valid JSON.",
    );
  }
  if (!allFinite(value)) {
    const field = nonFiniteField(value) ?? "The request body";
    const message = `${field} must be a finite number (at most about 1.8e308 in magnitude).`;
    throw invalidArgument(message, [{ field, message }]);
  }
  return value;
}

/**
 * Levels of arrays and objects a body may nest (docs/decisions.md): far beyond any real
 * document, and shallow enough that every reader of a stored value (serializers, the
 * console, a client's JSON Schema validator walking the recursive `JsonValue`) stays far
 * from its stack limit.
 */
export const MAX_NESTING = 64;

/**
 * Whether every number in a parsed body is finite: JSON.parse turns `1e309` (or 309 digits)
 * into ±Infinity, which JSON.stringify would store as `null`. A plain walk without
 * allocations: measured at under a tenth of JSON.parse's own time on the same body, and far
 * below a microsecond on a typical read. A body nested deeper than MAX_NESTING is refused.
 */
function allFinite(value: unknown, depth = 0): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return true;
  if (depth === MAX_NESTING) throw invalidArgument("The request body is nested too deeply.");
  if (Array.isArray(value)) {
    for (const item of value) if (!allFinite(item, depth + 1)) return false;
    return true;
  }
  for (const key in value) if (!allFinite((value as Record<string, unknown>)[key], depth + 1)) return false;
  return true;
}

/** The path (`data.entityData.x`) of the first non-finite number, or null; run only once one is known to exist. */
function nonFiniteField(root: unknown): string | null {
  const stack: [unknown, string][] = [[root, ""]];
  while (stack.length > 0) {
    const [value, path] = stack.pop()!;
    if (typeof value === "number") {
      if (!Number.isFinite(value)) return path === "" ? "The request body" : path;
    } else if (Array.isArray(value)) {
      // Pushed last-first, so the first offending field in the body is the one reported.
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${path}[${i}]`]);
    } else if (value !== null && typeof value === "object") {
      const entries = Object.entries(value);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        stack.push([child, path === "" ? key : `${path}.${key}`]);
      }
    }
  }
  return null;
}
