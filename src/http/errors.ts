import type { FastifyError } from "fastify";
import { AdmissionTimeout } from "../db/admission.js";
import { isStorageFault } from "../db/storage-faults.js";
import { ApiError, CodedApiError, type ErrorDetail, invalidArgument, unavailable } from "../errors.js";
import { bodyTooLarge } from "./body.js";
import { ID_PATTERN, MAX_BYTES } from "./schemas.js";

/** The subset of an Ajv error the formatter reads. */
interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/**
 * Turns the first schema violation into INVALID_ARGUMENT with a sentence naming the
 * field in the client's own terms: `data.activities[2].featureType`.
 */
export function formatSchemaErrors(errors: readonly SchemaError[]): ApiError {
  const details = [...(unionOfTypes(errors) ?? []), ...errors.map(describe)];
  return invalidArgument(details[0]?.message ?? "The request is invalid.", details);
}

/**
 * A value of none of a union's types (`string | number`, a User object or a string) fails
 * every branch with a type error at its own path: one message naming every type it may be.
 */
function unionOfTypes(errors: readonly SchemaError[]): ErrorDetail[] | null {
  const union = errors.findIndex((e) => e.keyword === "anyOf");
  if (union < 1) return null;
  const path = errors[union]!.instancePath;
  const branches = errors.slice(0, union);
  if (!branches.every((e) => e.keyword === "type" && e.instancePath === path)) return null;
  const at = fieldPath(path);
  const field = at === "" ? "The request body" : at;
  const types = [...new Set(branches.map((e) => article(String(e.params.type))))];
  return [{ ...(at === "" ? {} : { field: at }), message: `${field} must be ${types.join(" or ")}.` }];
}

function describe(error: SchemaError): ErrorDetail {
  const at = fieldPath(error.instancePath);
  const p = error.params;
  const field = at === "" ? "The request body" : at;
  const fieldOf = at === "" ? {} : { field: at };
  const child = (name: unknown) => (at === "" ? String(name) : `${at}.${String(name)}`);
  switch (error.keyword) {
    case "additionalProperties":
      return { field: child(p.additionalProperty), message: `Unknown field ${child(p.additionalProperty)}.` };
    case "required":
      return {
        field: child(p.missingProperty),
        message: `Missing required field ${child(p.missingProperty)}.`,
      };
    case "type":
      return { ...fieldOf, message: `${field} must be ${article(String(p.type))}.` };
    case "enum":
      return { ...fieldOf, message: `${field} must be one of ${(p.allowedValues as unknown[]).join(", ")}.` };
    case "const":
      return { ...fieldOf, message: `${field} must be ${JSON.stringify(p.allowedValue)}.` };
    case "minLength":
      return {
        ...fieldOf,
        message:
          p.limit === 1 ? `${field} must not be empty.` : `${field} must be at least ${p.limit} characters.`,
      };
    case "maxLength":
      return { ...fieldOf, message: `${field} must be at most ${p.limit} characters.` };
    case MAX_BYTES:
      return { ...fieldOf, message: `${field} must be at most ${p.limit} bytes in UTF-8.` };
    case "pattern":
      return {
        ...fieldOf,
        message:
          p.pattern === ID_PATTERN
            ? `${field} must not contain control characters.`
            : `${field} has an invalid format.`,
      };
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return { ...fieldOf, message: `${field} must be ${p.comparison} ${p.limit}.` };
    case "minItems":
      return {
        ...fieldOf,
        message:
          p.limit === 1 ? `${field} must not be empty.` : `${field} must hold at least ${p.limit} items.`,
      };
    case "maxItems":
      return { ...fieldOf, message: `${field} must hold at most ${p.limit} items.` };
    case "minProperties":
      return { ...fieldOf, message: `${field} must not be empty.` };
    default:
      return { ...fieldOf, message: `${field} is invalid${error.message ? `: ${error.message}` : ""}.` };
  }
}

/** `/data/activities/0/featureType` → `data.activities[0].featureType`. */
function fieldPath(instancePath: string): string {
  let out = "";
  for (const raw of instancePath.split("/").slice(1)) {
    const part = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    out += /^\d+$/.test(part) ? `[${part}]` : out === "" ? part : `.${part}`;
  }
  return out;
}

function article(type: string): string {
  const words = type
    .split(",")
    .map((t) => (t === "integer" || t === "object" || t === "array" ? `an ${t}` : `a ${t}`));
  return words.join(" or ");
}

/** PostgreSQL refusing a client's value: NUL in text (22021, 22P05), a number beyond bigint (22003, 22P02). */
const UNSTORABLE = new Set(["22021", "22P05", "22003", "22P02"]);

/** pg's own errors (no SQLSTATE) for a connection that broke under a query or transaction. */
const CONNECTION_LOST = /^Connection terminated|connection error and is not queryable/;

/**
 * PostgreSQL's statement_timeout (57014), pg's own wait for an answer, or pg-pool's wait
 * for a connection (a new one, or a free one from a busy pool) running out.
 */
const TIMED_OUT = (e: { code?: string; message?: string }) =>
  e.code === "57014" ||
  e.message === "Query read timeout" ||
  e.message === "timeout exceeded when trying to connect";

/**
 * PostgreSQL's lock_timeout (55P03 lock_not_available): another request holds a row or
 * advisory lock this one needs. Nothing was written (the transaction rolled back), and the
 * lock is usually gone in a moment: 503, retryable, in the usual error shape.
 */
const LOCK_NOT_AVAILABLE = "55P03";
/** Locks are short-lived: a second is a fair first wait, and the answer says so (`Retry-After`). */
const RETRY_AFTER_LOCK_S = 1;

/**
 * PostgreSQL's program_limit_exceeded (54000): a value too large for an index entry (2704
 * bytes) or another hard limit. Request schemas bound ids in bytes so that this does not
 * happen (schemas.ts); this is the safety net for any value they miss: the client's 400.
 */
const PROGRAM_LIMIT_EXCEEDED = "54000";

/** 25006 (read_only_sql_transaction): a connection still open to a former primary that is now a standby. */
const DATABASE_DOWN = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "57P01",
  "57P03",
  "25006",
  "SQLITE_BUSY",
]);

/**
 * Maps anything thrown during a request to the wire error (docs/architecture.md "Conventions"). Framework errors
 * keep their meaning under canonical statuses; unknown errors become INTERNAL.
 */
export function toApiError(error: unknown, bodyLimit: number): { error: ApiError; internal: boolean } {
  if (error instanceof ApiError) return { error, internal: false };
  const e = error as Partial<FastifyError> & { code?: string };
  switch (e.code) {
    case "FST_ERR_CTP_BODY_TOO_LARGE":
      // Our parser (body.ts) throws bodyTooLarge itself; kept for any parser Fastify runs.
      return { error: bodyTooLarge(bodyLimit), internal: false };
    case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
      return { error: invalidArgument("Content-Type must be application/json."), internal: false };
  }
  if (e.code === LOCK_NOT_AVAILABLE) {
    return {
      error: unavailable(
        "Another request holds a lock on data this request needs; nothing was written, try again.",
        RETRY_AFTER_LOCK_S,
      ),
      internal: false,
    };
  }
  if (error instanceof AdmissionTimeout) {
    return { error: unavailable(error.message, RETRY_AFTER_LOCK_S), internal: false };
  }
  if (e.code === PROGRAM_LIMIT_EXCEEDED) {
    return {
      error: invalidArgument(
        "The request holds a value too large to store or index (an id or key of too many bytes).",
      ),
      internal: true,
    };
  }
  if (TIMED_OUT(e)) {
    return {
      error: new ApiError("UNAVAILABLE", "The database did not answer in time; try again later."),
      internal: true,
    };
  }
  if (
    (typeof e.code === "string" && DATABASE_DOWN.has(e.code)) ||
    CONNECTION_LOST.test(e.message ?? "") ||
    isStorageFault(error)
  ) {
    return { error: new ApiError("UNAVAILABLE", "The service is temporarily unavailable."), internal: true };
  }
  if (typeof e.code === "string" && UNSTORABLE.has(e.code)) {
    return {
      error: invalidArgument(
        "The request holds a value that cannot be stored (a NUL character or a number out of range).",
      ),
      internal: false,
    };
  }
  if (error instanceof RangeError && /call stack/.test(error.message)) {
    // A free-form value (entityData, …) nested thousands of levels deep: serializing it overflows the stack.
    return { error: invalidArgument("The request body is nested too deeply."), internal: false };
  }
  if (typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return { error: invalidArgument(sentence(e.message ?? "The request is invalid.")), internal: false };
  }
  return { error: new ApiError("INTERNAL", "An internal error occurred."), internal: true };
}

function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

export function errorBody(error: ApiError): string {
  const body: { status: string; message: string; code?: string; details?: readonly ErrorDetail[] } = {
    status: error.status,
    message: error.message,
  };
  if (error instanceof CodedApiError) body.code = error.code;
  if (error.details && error.details.length > 0) body.details = error.details;
  return JSON.stringify({ error: body });
}
