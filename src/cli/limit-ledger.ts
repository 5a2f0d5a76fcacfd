import type { Worker } from "node:cluster";
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
 * authentications per address and per presented key. An address that runs out is pushed to
 * every worker, which then refuses it before its credentials are looked up.
 */
export class LimitLedger {
  private readonly requests: RateLimiter;
  private readonly failures: AuthFailureLimiter;

  constructor(
    limits: { readonly requestsPerMinute: number; readonly failuresPerMinute: number },
    clock: Clock,
    private readonly workers: () => Iterable<Worker>,
  ) {
    this.requests = new RateLimiter(limits.requestsPerMinute, clock);
    this.failures = new AuthFailureLimiter(limits.failuresPerMinute, clock);
  }

  /** A limits message from a worker; answered to that worker (and, for a refused address, to all). */
  receive(from: Worker, message: LimitRequest): void {
    if (message.kind === "return") {
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
