import type { Worker } from "node:cluster";
import { ConnectionCounts } from "../http/connections.js";
import { AuthFailureLimiter, RateLimited, RateLimiter } from "../http/rate-limit.js";
import { LIMITS, type LimitAnswer, type LimitRequest } from "../http/shared-limits.js";
import type { Clock } from "../lib/clock.js";

/**
 * A grant is at most this share of the tokens left, divided among the workers: far from the
 * limit a worker leases a few dozen requests per round trip; near it, one at a time.
 */
const GRANT_SHARE = 1 / 4;
/** Tokens one grant holds at most, so a worker's idle lease keeps little from the others. */
const GRANT_MAX = 64;

/**
 * The supervisor's side of the request limits (src/http/shared-limits.ts): the one set of
 * buckets every worker of this host spends from — requests per workspace, failed
 * authentications per address and per presented key — and the one count of each address's
 * open connections. An address that runs out of failures is pushed to every worker, which then
 * refuses it before its credentials are looked up.
 */
export class LimitLedger {
  private readonly requests: RateLimiter;
  private readonly failures: AuthFailureLimiter;
  private readonly connections: ConnectionCounts;
  /** Each worker's part of `connections`: given back when the worker exits (its sockets went with it). */
  private readonly connectionsOf = new Map<Worker, Map<string, number>>();

  constructor(
    limits: {
      readonly requestsPerMinute: number;
      readonly failuresPerMinute: number;
      readonly connectionsPerAddress?: number;
    },
    clock: Clock,
    private readonly workers: () => Iterable<Worker>,
  ) {
    this.requests = new RateLimiter(limits.requestsPerMinute, clock);
    this.failures = new AuthFailureLimiter(limits.failuresPerMinute, clock);
    this.connections = new ConnectionCounts(limits.connectionsPerAddress ?? 0);
  }

  /** A limits message from a worker; answered to that worker (and, for a refused address, to all). */
  receive(from: Worker, message: LimitRequest): void {
    if (message.kind === "connect") {
      const kept = this.connections.take(message.address);
      if (kept) this.count(from, message.address, 1);
      reply(from, { type: LIMITS, kind: "connect", id: message.id, kept });
    } else if (message.kind === "disconnect") {
      if (this.count(from, message.address, -1)) this.connections.give(message.address);
    } else if (message.kind === "return") {
      this.requests.giveBack(message.key, message.tokens);
    } else if (message.kind === "take") {
      reply(from, this.take(message.id, message.key));
    } else {
      const { wait, addressBlockedMs } = this.failures.spend(message.address, message.apiKey);
      if (addressBlockedMs > 0) {
        const blocked: LimitAnswer = {
          type: LIMITS,
          kind: "blocked",
          address: message.address,
          ms: addressBlockedMs,
        };
        for (const worker of this.workers()) reply(worker, blocked);
      }
      reply(from, { type: LIMITS, kind: "failed", id: message.id, wait });
    }
  }

  /** A worker exited: the connections it held are closed. */
  forget(worker: Worker): void {
    for (const [address, open] of this.connectionsOf.get(worker) ?? []) this.connections.give(address, open);
    this.connectionsOf.delete(worker);
  }

  /** Adds `change` to the worker's connections of `address`; false when it had none to take one from. */
  private count(worker: Worker, address: string, change: 1 | -1): boolean {
    let mine = this.connectionsOf.get(worker);
    if (mine === undefined) {
      // A late close from a worker already forgotten: nothing to take from, nothing to remember.
      if (change < 0) return false;
      mine = new Map();
      this.connectionsOf.set(worker, mine);
    }
    const open = (mine.get(address) ?? 0) + change;
    if (open < 0) return false;
    if (open === 0) mine.delete(address);
    else mine.set(address, open);
    return true;
  }

  private take(id: number, key: string): LimitAnswer {
    const workers = Math.max(1, [...this.workers()].length);
    try {
      const granted = this.requests.takeUpTo(key, (tokens) =>
        Math.min(GRANT_MAX, Math.floor((tokens * GRANT_SHARE) / workers)),
      );
      return { type: LIMITS, kind: "take", id, granted, wait: 0 };
    } catch (error) {
      if (!(error instanceof RateLimited)) throw error;
      return { type: LIMITS, kind: "take", id, granted: 0, wait: error.retryAfterS };
    }
  }
}

function reply(worker: Worker, answer: LimitAnswer): void {
  if (worker.isConnected()) worker.send(answer, undefined, undefined, () => {});
}
