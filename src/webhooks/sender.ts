import http from "node:http";
import https from "node:https";
import { isIP } from "node:net";
import { performance } from "node:perf_hooks";
import type { HostResolver, ResolvedAddress } from "../lib/host-resolver.js";
import {
  EgressRefused,
  hostOf,
  isForbiddenAddress,
  pinnedLookup,
  refusedAddresses,
  refusedName,
} from "./egress.js";

/** One webhook HTTP request, as the worker hands it to a sender. */
export interface OutgoingRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly timeoutMs: number;
  /** Aborted when the worker stops before the attempt finishes. */
  readonly signal?: AbortSignal;
  /** Whose delivery this is: host lookups are shared fairly between workspaces. */
  readonly workspaceId?: string;
}

export interface SenderResponse {
  readonly status: number;
  /** `Retry-After` as sent, or null. */
  readonly retryAfter: string | null;
  /** The first bytes of the response body, capped. */
  readonly body: string;
}

/**
 * Sends one request. Rejects on network failure, timeout, abort or a refused destination;
 * resolves with whatever status the receiver answered. Injected so tests control it.
 */
export type Sender = (request: OutgoingRequest) => Promise<SenderResponse>;

export interface HttpSender extends Sender {
  /** Closes kept-alive sockets. */
  close(): void;
}

/** A deadline timer this late means the event loop stalled; see `onDeadline`. */
const STALL_MS = 50;
const STALL_GRACE_MS = 100;

/** Responses are read up to this many bytes; the rest is never buffered. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * The real sender: node:http(s) with kept-alive sockets, no redirects (a 3xx is just a
 * status), a deadline over the whole exchange (name lookup included), a capped response
 * body, and, unless private destinations are allowed, the egress guard on the addresses
 * the socket may connect to. Names go through `resolver` (c-ares, fair per workspace),
 * never through `dns.lookup`.
 */
export function httpSender(options: {
  allowPrivateUrls: boolean;
  resolver: HostResolver;
  maxSockets?: number;
}): HttpSender {
  const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 64, scheduling: "lifo" as const };
  const agents = { "http:": new http.Agent(agentOptions), "https:": new https.Agent(agentOptions) };
  const send = (request: OutgoingRequest): Promise<SenderResponse> =>
    new Promise((resolve, reject) => {
      const url = new URL(request.url);
      if (url.protocol !== "http:" && url.protocol !== "https:") {
        return reject(new Error(`Unsupported URL scheme ${url.protocol}`));
      }
      const host = hostOf(url);
      const literal = isIP(host) !== 0;
      if (!options.allowPrivateUrls) {
        if (literal && isForbiddenAddress(host)) {
          return reject(new EgressRefused(`Refused to connect to ${host}: not a public address.`));
        }
        const refused = literal ? null : refusedName(host);
        if (refused) return reject(refused);
      }
      let settled = false;
      let req: http.ClientRequest | null = null;
      // Ends the name lookup when the attempt ends first (deadline, worker stop).
      const lookupDone = new AbortController();
      const started = performance.now();
      // The deadline measures the receiver, not this process: when the event loop itself
      // stalled past it (a long synchronous commit or checkpoint), timers run before the
      // socket reads queued meanwhile, so an answer that already arrived gets a moment.
      let graced = false;
      const onDeadline = () => {
        const lag = performance.now() - started - request.timeoutMs;
        if (!graced && lag > STALL_MS) {
          graced = true;
          timer = setTimeout(onDeadline, STALL_GRACE_MS);
        } else if (!settled) {
          const error = new Error(`Timed out after ${request.timeoutMs} ms.`);
          if (req) req.destroy(error);
          else fail(error);
        }
      };
      let timer = setTimeout(onDeadline, request.timeoutMs);
      const fail = (error: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        lookupDone.abort(error);
        reject(error);
      };
      const connect = (addresses: readonly ResolvedAddress[] | null) => {
        if (settled) return;
        const transport = url.protocol === "https:" ? https : http;
        req = transport.request(url, {
          method: "POST",
          agent: agents[url.protocol as "http:" | "https:"],
          headers: { ...request.headers, "content-length": String(Buffer.byteLength(request.body)) },
          ...(addresses ? { lookup: pinnedLookup(addresses) as never } : {}),
          ...(request.signal ? { signal: request.signal } : {}),
        });
        req.on("error", fail);
        req.on("response", (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const finish = () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            const retryAfter = res.headers["retry-after"];
            resolve({
              status: res.statusCode ?? 0,
              retryAfter: typeof retryAfter === "string" ? retryAfter : null,
              body: Buffer.concat(chunks).toString("utf8"),
            });
          };
          res.on("data", (chunk: Buffer) => {
            const room = MAX_RESPONSE_BYTES - size;
            if (room > 0) chunks.push(chunk.subarray(0, room));
            size += chunk.length;
            if (size > MAX_RESPONSE_BYTES) {
              // Enough read: the status is known; drop the connection instead of the rest.
              res.removeAllListeners("data");
              req?.destroy();
              finish();
            }
          });
          res.on("end", finish);
          res.on("error", fail);
        });
        req.end(request.body);
      };
      if (literal) return connect(null);
      const signal = request.signal
        ? AbortSignal.any([request.signal, lookupDone.signal])
        : lookupDone.signal;
      options.resolver
        .resolve(host, { ...(request.workspaceId ? { workspaceId: request.workspaceId } : {}), signal })
        .then(
          (addresses) => {
            const refused = options.allowPrivateUrls ? null : refusedAddresses(host, addresses);
            if (refused) fail(refused);
            else connect(addresses);
          },
          (error: Error) => fail(error),
        );
    });
  return Object.assign(send, {
    close: () => {
      agents["http:"].destroy();
      agents["https:"].destroy();
    },
  });
}
