import { createHash } from "node:crypto";
import type { Ctx } from "../context.js";
import type { Readable } from "../db/handles.js";
import { ApiError, invalidArgument, unavailable } from "../errors.js";
import type { Outcome } from "../http/operation.js";
import { openAnswer } from "./sealed-answers.js";

/**
 * `Idempotency-Key` on writes (README "Retries", docs/decisions.md): the request's writes, its
 * key and its answer commit in one transaction (claim.ts), before the client gets it. A retry with the same key and body gets the
 * stored answer and writes nothing; another body under the key is refused; a retry while the
 * first is still running is refused with 503 and `Retry-After` (nothing applied). A request
 * that wrote nothing (a read, a refusal) stores nothing, so its retry simply runs again.
 */

/** The header, as Fastify hands it over (lower case). */
export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Keys are kept this long, then swept (src/idempotency/retention.ts). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What a keyed request carries to where it runs (this process, or the writer). */
export interface IdempotentRequest {
  readonly key: string;
  /** The operation and a hash of its `data`: a key reused with another request is refused. */
  readonly fingerprint: string;
}

/** The key and fingerprint of a request, or null without the header; a malformed key is INVALID_ARGUMENT. */
export function idempotentRequest(
  header: unknown,
  operationPath: string,
  data: unknown,
): IdempotentRequest | null {
  if (header === undefined) return null;
  if (typeof header !== "string" || !KEY_PATTERN.test(header)) {
    throw invalidArgument("The Idempotency-Key header must be 1 to 255 visible ASCII characters.");
  }
  const fingerprint = createHash("sha256")
    .update(operationPath)
    .update("\n")
    .update(JSON.stringify(data))
    .digest("hex");
  return { key: header, fingerprint };
}

/** A stored answer to send again. */
export interface StoredAnswer {
  readonly statusCode: number;
  readonly outcome: Outcome;
}

/**
 * Before running a keyed request: the first answer if the key has one, an error if it was
 * used with another request or its first request is still running, or null: run it.
 * `inProgressMs`: how long a claimed key without an answer counts as still running.
 */
export async function priorAnswer(
  reader: Readable,
  ctx: Pick<Ctx, "workspace" | "clock" | "keys">,
  request: IdempotentRequest,
  inProgressMs: number,
): Promise<StoredAnswer | null> {
  const row = await reader
    .selectFrom("idempotency_keys")
    .select(["fingerprint", "created_at", "status_code", "answer"])
    .where("workspace_id", "=", ctx.workspace.id)
    .where("key", "=", request.key)
    .executeTakeFirst();
  if (row === undefined) return null;
  if (row.fingerprint !== request.fingerprint) throw keyReused();
  if (row.answer !== null && row.status_code !== null) {
    const answer = openAnswer(ctx.keys.atRest, ctx.workspace.id, request.key, row.answer);
    return { statusCode: Number(row.status_code), outcome: JSON.parse(answer) as Outcome };
  }
  if (ctx.clock.now() - Number(row.created_at) < inProgressMs) throw inProgress();
  throw new ApiError(
    "FAILED_PRECONDITION",
    "A request with this Idempotency-Key was applied, but its answer was not recorded (the service stopped); it is not applied again.",
  );
}

const keyReused = () =>
  new ApiError(
    "INVALID_ARGUMENT",
    "This Idempotency-Key was used with a different request (operation or body); use a new key.",
    [{ field: "Idempotency-Key", message: "used with a different request" }],
  );

export const inProgress = () =>
  unavailable(
    "A request with this Idempotency-Key is still running; nothing was applied. Try again shortly.",
    1,
  );
