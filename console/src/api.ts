/** The two headers every API call carries (docs/contract.md "Authentication"); held in this tab's sessionStorage only. */
export interface Session {
  readonly apiKey: string;
  readonly authToken: string;
}

export interface ErrorDetail {
  readonly field?: string;
  readonly message?: string;
}

/** A failed call, in the API's error shape (docs/contract.md "Answers and errors"). */
export class ApiFailure extends Error {
  constructor(
    readonly status: string,
    readonly httpStatus: number,
    message: string,
    readonly details: readonly ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export interface Result<T> {
  readonly message: string;
  readonly data: T;
  readonly pageToken?: string;
}

const STORAGE_KEY = "collabd.console.session";

/** sessionStorage, never localStorage or a cookie: the token dies with the tab. */
export function loadSession(): Session | null {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null") as Session | null;
    return parsed && typeof parsed.apiKey === "string" && typeof parsed.authToken === "string"
      ? parsed
      : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session | null): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}

let onSignedOut: (reason: string) => void = () => {};

/** The app's hook for a refused token: every view's call ends the session the same way. */
export function whenCredentialsRefused(handler: (reason: string) => void): void {
  onSignedOut = handler;
}

/** POSTs `{data}` to an operation with the session's headers. 401/403 end the session. */
export async function call<T>(session: Session, path: string, data: unknown): Promise<Result<T>> {
  const res = await post(session, path, data);
  if (res instanceof ApiFailure) {
    if (res.httpStatus === 401 || res.httpStatus === 403) onSignedOut(res.message);
    throw res;
  }
  return res as Result<T>;
}

/** Checks credentials before they are kept: the same call, but a refusal is only reported. */
export async function verifyCredentials(session: Session): Promise<void> {
  const res = await post(session, "/v2/workspace/webhookconfig/get", {});
  if (res instanceof ApiFailure) throw res;
}

async function post(session: Session, path: string, data: unknown): Promise<Result<unknown> | ApiFailure> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-svc-api-key": session.apiKey,
        "x-svc-auth-token": session.authToken,
      },
      body: JSON.stringify({ data }),
      credentials: "omit",
      cache: "no-store",
    });
  } catch {
    return new ApiFailure("UNAVAILABLE", 0, "The service could not be reached.");
  }
  const body = (await res.json().catch(() => null)) as {
    result?: Result<unknown>;
    error?: { status?: string; message?: string; details?: unknown };
  } | null;
  if (res.ok && body?.result) return body.result;
  const error = body?.error;
  return new ApiFailure(
    String(error?.status ?? "UNKNOWN"),
    res.status,
    String(error?.message ?? `HTTP ${res.status}.`),
    Array.isArray(error?.details) ? (error.details as ErrorDetail[]) : [],
  );
}
