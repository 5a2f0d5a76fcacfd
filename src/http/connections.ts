import { maxHeaderSize, type Server, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { TransportConfig } from "../config.js";
import { ApiError, invalidArgument } from "../errors.js";
import { errorBody } from "./errors.js";

/**
 * Connection hygiene (docs/decisions.md, "Transport abuse"): timeouts so no socket is held
 * for free, a cap on open connections per client address, and HTTP-level errors (bad
 * framing, oversized headers, timeouts) answered in the error shape (docs/contract.md "Answers and errors").
 */

/** The Fastify server options that bound how long a client may hold a connection. */
export function serverTimeouts(t: TransportConfig) {
  return {
    connectionTimeout: t.socketIdleTimeoutMs,
    keepAliveTimeout: t.keepAliveTimeoutMs,
    requestTimeout: t.requestTimeoutMs,
    http: {
      headersTimeout: t.headersTimeoutMs,
      requestTimeout: t.requestTimeoutMs,
      // Node checks the two timeouts on this period (30 s by default, which would stretch a
      // 10 s header deadline to 40 s); a sweep over the open connections is cheap.
      connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(t.headersTimeoutMs / 4))),
    },
  };
}

/**
 * The unit a client is counted by: an IPv4 address (also when IPv4-mapped), or an IPv6
 * /64, since one host commonly owns a whole /64 and could otherwise rotate addresses.
 */
export function addressGroup(address: string | undefined): string {
  if (address === undefined) return "unknown";
  if (!address.includes(":")) return address;
  if (address.startsWith("::ffff:") && address.includes(".")) return address.slice(7);
  const bare = address.split("%")[0]!.toLowerCase();
  const [head = "", tail] = bare.split("::");
  const front = head === "" ? [] : head.split(":");
  const back = tail === undefined || tail === "" ? [] : tail.split(":");
  const groups =
    tail === undefined
      ? front
      : [...front, ...Array(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/**
 * Open connections per client address group, at most `max` each (0: no cap). One process
 * keeps its own (`localLimits`, shared-limits.ts); the supervisor of several workers keeps
 * the one count they all ask (src/cli/limit-ledger.ts).
 */
export class ConnectionCounts {
  private readonly open = new Map<string, number>();

  constructor(readonly max: number) {}

  /** Counts one more connection of `group`; false, counting nothing, when it holds `max` already. */
  take(group: string): boolean {
    const count = this.open.get(group) ?? 0;
    if (this.max > 0 && count >= this.max) return false;
    this.open.set(group, count + 1);
    return true;
  }

  /** One connection of `group` closed. */
  give(group: string, connections = 1): void {
    const left = (this.open.get(group) ?? 0) - connections;
    if (left <= 0) this.open.delete(group);
    else this.open.set(group, left);
  }
}

/** Who counts a process's connections: its own ConnectionCounts, or the supervisor's (a round trip). */
export interface ConnectionSlots {
  /** Whether a connection of `group` just accepted may stay open; each kept one is given back once closed. */
  connected(group: string): boolean | Promise<boolean>;
  disconnected(group: string): void;
}

/**
 * Refuses a client address's connections beyond `max` open at once: the excess socket is
 * destroyed as soon as it is accepted, before a byte of it is parsed. Without this, one
 * client holding thousands of idle sockets exhausts the process's file descriptors and
 * every other client gets empty replies. `onRefused` feeds a metric.
 *
 * With several workers the count is the supervisor's, which a worker asks on each accept:
 * node:cluster deals one address's connections to every worker, so a count per process would
 * let it hold `max` in each. So that the answer may take that round trip, sockets start paused
 * (net's `pauseOnConnect`), and the HTTP server sees a socket only once it is kept: no byte
 * of a refused connection is read, and a kept one's first bytes are read after the answer.
 */
export function capConnectionsPerAddress(
  server: Server,
  max: number,
  slots: ConnectionSlots,
  onRefused: () => void = () => {},
): void {
  if (max <= 0) return;
  const serve = server.listeners("connection") as ((socket: Socket) => void)[];
  server.removeAllListeners("connection");
  (server as Server & { pauseOnConnect: boolean }).pauseOnConnect = true;
  server.on("connection", (socket: Socket) => {
    const group = addressGroup(socket.remoteAddress);
    const decide = (kept: boolean) => {
      socket.off("error", ignore);
      if (!kept) {
        onRefused();
        socket.destroy();
        return;
      }
      // Destroyed while the answer came (its close event already passed): its place goes back now.
      if (socket.destroyed) return slots.disconnected(group);
      socket.once("close", () => slots.disconnected(group));
      for (const listener of serve) listener.call(server, socket);
      socket.resume();
    };
    const answer = slots.connected(group);
    if (typeof answer === "boolean") return decide(answer);
    // Paused, the socket reads nothing meanwhile; an error before the HTTP server's handler is not fatal.
    socket.on("error", ignore);
    answer.then(decide, () => decide(false));
  });
}

const ignore = () => {};

/** Node's parser errors worth a precise sentence; the rest say "not valid HTTP/1.1". */
const PARSE_MESSAGES: Record<string, string> = {
  // llhttp reports Content-Length beside Transfer-Encoding under either code, by header order.
  HPE_UNEXPECTED_CONTENT_LENGTH: "The request has an invalid Content-Length or one beside Transfer-Encoding.",
  HPE_INVALID_CONTENT_LENGTH: "The request has an invalid or repeated Content-Length.",
  HPE_INVALID_TRANSFER_ENCODING:
    "The request has an invalid Transfer-Encoding or one beside Content-Length (request smuggling).",
  HPE_INVALID_CHUNK_SIZE: "The request body has an invalid chunk size.",
  HPE_INVALID_METHOD: "The request has an invalid method.",
  HPE_INVALID_URL: "The request has an invalid URL.",
  HPE_INVALID_HEADER_TOKEN: "The request has an invalid header.",
};

/** What a client error is answered with, in the error shape (its codes: docs/contract.md "Answers and errors"; HTTP status kept). */
export function clientErrorAnswer(code: string | undefined, requestTimeoutMs: number): ApiError {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return new ApiError(
        "RESOURCE_EXHAUSTED",
        `The request headers exceed the ${maxHeaderSize}-byte limit.`,
        undefined,
        431,
      );
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new ApiError(
        "INVALID_ARGUMENT",
        `The request was not received within ${requestTimeoutMs} ms.`,
        undefined,
        408,
      );
    default:
      return invalidArgument(PARSE_MESSAGES[code ?? ""] ?? "The request is not valid HTTP/1.1.");
  }
}

/**
 * Replaces Fastify's clientError handler (whose body is `{"error":"Bad Request",…}`) with one
 * that answers in the error shape (docs/contract.md "Answers and errors"), then closes the socket as Node does.
 */
export function clientErrorHandler(requestTimeoutMs: number) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    // Never write into the middle of a response already on its way (Node's own rule).
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const answer = clientErrorAnswer(error.code, requestTimeoutMs);
      const body = errorBody(answer);
      socket.write(
        `HTTP/1.1 ${answer.httpStatus} ${STATUS_CODES[answer.httpStatus]}\r\n` +
          "Content-Type: application/json; charset=utf-8\r\n" +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
