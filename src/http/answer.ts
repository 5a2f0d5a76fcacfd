import type { FastifyReply, FastifyRequest } from "fastify";
import type { Outcome } from "./operation.js";

/** The content type of every answer of the API. */
export const JSON_TYPE = "application/json; charset=utf-8";

/**
 * An onSend hook: operations answer secrets and tokens (webhook secrets, credentials), so no answer
 * of the API may be kept by a cache on the way, errors included.
 */
export async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.header("cache-control", "no-store");
}

/**
 * Route options (`config` and the route's own flags) of an operation whose body may be left out:
 * no body (no content type), or `{}`, means the empty envelope (an empty JSON body: body.ts).
 */
export function optionalBody(bodyOptional: boolean | undefined, config: Record<string, unknown> = {}) {
  return {
    config: { ...config, bodyOptional: bodyOptional === true },
    ...(bodyOptional
      ? {
          preValidation: async (request: FastifyRequest) => {
            const body = request.body;
            if (body === undefined || body === null) request.body = { data: {} };
            else if (typeof body === "object" && !Array.isArray(body) && Object.keys(body).length === 0)
              request.body = { data: {} };
          },
        }
      : {}),
  };
}

/**
 * Serializes the success envelope; `rawData` is spliced in as already-serialized JSON.
 * `withNextPageToken` (the operation's flag, docs/compatibility.md "Policy") repeats `pageToken` under the
 * original's name, null on the last page. `withoutData` (the operation's flag) leaves `data` out.
 */
export function render(outcome: Outcome, withNextPageToken = false, withoutData = false): string {
  const message = `{"result":{"status":"success","message":${JSON.stringify(outcome.message)}`;
  const head = withoutData ? message : `${message},"data":`;
  const data = withoutData ? "" : (outcome.rawData ?? JSON.stringify(outcome.data ?? null));
  const next = withNextPageToken ? `,"nextPageToken":${JSON.stringify(outcome.pageToken || null)}` : "";
  const extras = outcome.resultExtras ? JSON.stringify(outcome.resultExtras).slice(1, -1) : "";
  const tail =
    (outcome.pageToken === undefined ? "" : `,"pageToken":${JSON.stringify(outcome.pageToken)}`) +
    next +
    (extras ? `,${extras}` : "") +
    "}}";
  if (!outcome.topLevel) return head + data + tail;
  // Keys beside `result` (docs/compatibility.md "D18"): written first, so `result` keeps its place at the end.
  return `${JSON.stringify(outcome.topLevel).slice(0, -1)},${head.slice(1)}${data}${tail}`;
}
