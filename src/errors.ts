/**
 * The closed set of failures the service reports (docs/contract.md "Requests"). Domain code throws
 * ApiError; the transport maps it to `{error: {status, message, details?}}` and the
 * HTTP status fixed by the canonical code. Anything else becomes INTERNAL.
 */

export const HTTP_STATUS = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  INTERNAL: 500,
  UNAVAILABLE: 503,
} as const;

export type ErrorStatus = keyof typeof HTTP_STATUS;

export interface ErrorDetail {
  readonly field?: string;
  readonly id?: string;
  readonly message: string;
}

export class ApiError extends Error {
  /** Seconds a client should wait before trying again, sent as `Retry-After` (rate limits, refusals while a process restarts). */
  declare readonly retryAfterS?: number;

  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details?: readonly ErrorDetail[],
    /** Overrides the status' usual HTTP code (413 and 405 keep their canonical status). */
    readonly httpStatus: number = HTTP_STATUS[status],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** "Not applied; try again in `retryAfterS` seconds": 503 UNAVAILABLE with `Retry-After`. */
export function unavailable(message: string, retryAfterS: number): ApiError {
  return Object.assign(new ApiError("UNAVAILABLE", message), { retryAfterS });
}

/**
 * An ApiError as plain data, for the channel between processes (src/http/forward.ts): its
 * class name, message and every own field, whatever a subclass adds — nothing to keep in step.
 */
export interface WireApiError {
  readonly name: string;
  readonly message: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

/** Classes revived as themselves on the other side, so `instanceof` holds there too. */
const revivable = new Map<string, { prototype: ApiError }>();

/**
 * Lets a subclass cross processes as itself. One that is not registered still crosses with
 * every field (as an ApiError of the same name), so nothing a client sees changes.
 */
export function crossesProcesses(subclass: { name: string; prototype: ApiError }): void {
  revivable.set(subclass.name, subclass);
}

export function apiErrorToWire(error: ApiError): WireApiError {
  return { name: error.name, message: error.message, fields: { ...error } };
}

export function apiErrorFromWire(wire: WireApiError): ApiError {
  const error: ApiError = Object.create((revivable.get(wire.name) ?? ApiError).prototype);
  Object.assign(error, wire.fields, { message: wire.message });
  Error.captureStackTrace(error);
  return error;
}

export const invalidArgument = (message: string, details?: readonly ErrorDetail[]) =>
  new ApiError("INVALID_ARGUMENT", message, details);

export const notFound = (message: string) => new ApiError("NOT_FOUND", message);

/**
 * An error that also carries the original service's `error.code` (docs/compatibility.md "D9": folder
 * delete's not-found shows `code: "not-found"` next to the canonical status).
 */
export class CodedApiError extends ApiError {
  constructor(
    status: ErrorStatus,
    message: string,
    readonly code: string,
  ) {
    super(status, message);
  }
}
crossesProcesses(CodedApiError);

export const failedPrecondition = (message: string) => new ApiError("FAILED_PRECONDITION", message);
