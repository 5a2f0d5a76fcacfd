/**
 * The closed set of failures the service reports (DESIGN §2). Domain code throws
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
  constructor(
    readonly status: ErrorStatus,
    message: string,
    readonly details?: readonly ErrorDetail[],
    /** Overrides the status' usual HTTP code (413 and 405 keep their canonical status). */
    readonly httpStatus: number = HTTP_STATUS[status],
  ) {
    super(message);
  }
}

export const invalidArgument = (message: string, details?: readonly ErrorDetail[]) =>
  new ApiError("INVALID_ARGUMENT", message, details);

export const notFound = (message: string) => new ApiError("NOT_FOUND", message);

/**
 * An error that also carries the original service's `error.code` (COMPAT §E.9: folder
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

export const failedPrecondition = (message: string) => new ApiError("FAILED_PRECONDITION", message);
