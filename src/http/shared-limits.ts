import type { Clock } from "../lib/clock.js";
import { ConnectionCounts, type ConnectionSlots } from "./connections.js";
import { AuthFailureLimiter, RateLimited, RateLimiter, tooManyFailures } from "./rate-limit.js";

/**
 * The limits per client address and per key (http/app.ts): open connections per address,
 * failed authentications per address and per presented key, requests per workspace. One
 * process keeps them itself (`localLimits`); the workers of a supervisor share the
 * supervisor's (`SharedLimits`), so N workers enforce one limit, not N (docs/decisions.md
 * "Fair shares of the writer, limits across processes").
 */
export interface RequestLimits extends ConnectionSlots {
  /** Before authenticating: throws RESOURCE_EXHAUSTED when the address has failed too often. */
  admit(address: string): void;
  /** After a failed authentication: the error to answer (`failure`, or RESOURCE_EXHAUSTED). */
  failed(address: string, apiKey: unknown, failure: unknown): unknown | Promise<unknown>;
  /** Takes one request of the workspace's budget, or throws RESOURCE_EXHAUSTED. */
  take(workspaceId: string): void | Promise<void>;
}

export function localLimits(
  requestsPerMinute: number,
  failuresPerMinute: number,
  clock: Clock,
  connectionsPerAddress = 0,
): RequestLimits {
  const requests = new RateLimiter(requestsPerMinute, clock);
  const failures = new AuthFailureLimiter(failuresPerMinute, clock);
  const connections = new ConnectionCounts(connectionsPerAddress);
  return {
    connected: (group) => connections.take(group),
    disconnected: (group) => connections.give(group),
    admit: (address) => failures.admit(address),
    failed: (address, apiKey, failure) => failures.failed(address, apiKey, failure),
    take: (workspaceId) => requests.take(workspaceId),
  };
}

/** The IPC message type of the limits, worker ↔ supervisor (src/cli/limit-ledger.ts). */
export const LIMITS = "collabd:limits";

export type LimitRequest =
  | { type: typeof LIMITS; kind: "take"; id: number; key: string }
  | { type: typeof LIMITS; kind: "failed"; id: number; address: string; apiKey: string | null }
  | { type: typeof LIMITS; kind: "return"; key: string; tokens: number }
  | { type: typeof LIMITS; kind: "connect"; id: number; address: string }
  | { type: typeof LIMITS; kind: "disconnect"; address: string };

export type LimitAnswer =
  /** `granted` tokens taken for the worker (it uses one now, leases the rest), or `wait` seconds. */
  | { type: typeof LIMITS; kind: "take"; id: number; granted: number; wait: number }
  | { type: typeof LIMITS; kind: "failed"; id: number; wait: number }
  /** Whether the connection may stay open: the supervisor counted it among the address's. */
  | { type: typeof LIMITS; kind: "connect"; id: number; kept: boolean }
  /** To every worker: the address is refused before lookup for `ms` from now. */
  | { type: typeof LIMITS; kind: "blocked"; address: string; ms: number };

/** How long a worker keeps leased tokens before it gives back what it did not use. */
export const LEASE_MS = 1000;
/** Blocked addresses a worker remembers at most (each expires on its own; the oldest go first). */
const BLOCKED_MAX = 10_000;

/**
 * A worker's side of the supervisor's limits. A request's token comes from a lease the worker
 * holds for the workspace, or from the supervisor (one IPC round trip), which grants one token,
 * or a few more when the bucket is far from empty: as it nears empty, every token is asked for,
 * so the workers together never pass the limit. Leases not used within LEASE_MS are given back.
 * Failed authentications go to the supervisor (they are rare); the addresses it refuses are
 * pushed to every worker, so admitting a request costs no round trip. Each accepted connection
 * is counted by the supervisor too (one round trip per connection, not per request; node:cluster
 * already hands each connection over with one), and its close told to it.
 */
export class SharedLimits implements RequestLimits {
  private nextId = 0;
  private readonly waiting = new Map<number, (answer: LimitAnswer) => void>();
  private readonly leases = new Map<string, { tokens: number; until: number }>();
  private readonly blocked = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly send: (message: LimitRequest) => void,
    private readonly clock: Clock,
    /** The configured limits: 0 turns one off here, with no message sent for it. */
    private readonly perMinute: { readonly requests: number; readonly failures: number },
    private readonly connectionsPerAddress = 0,
  ) {
    this.sweeper = setInterval(() => this.giveBackExpired(), LEASE_MS);
    this.sweeper.unref();
  }

  admit(address: string): void {
    const until = this.blocked.get(address);
    if (until === undefined) return;
    const now = this.clock.now();
    if (now >= until) {
      this.blocked.delete(address);
      return;
    }
    throw new RateLimited(
      Math.max(1, Math.ceil((until - now) / 1000)),
      "Too many failed authentications from this address",
    );
  }

  async failed(address: string, apiKey: unknown, failure: unknown): Promise<unknown> {
    if (this.perMinute.failures <= 0) return failure;
    const key = typeof apiKey === "string" ? apiKey : null;
    const answer = await this.ask({ type: LIMITS, kind: "failed", id: 0, address, apiKey: key });
    return answer.kind === "failed" && answer.wait > 0 ? tooManyFailures(answer.wait) : failure;
  }

  async take(workspaceId: string): Promise<void> {
    if (this.perMinute.requests <= 0) return;
    const lease = this.leases.get(workspaceId);
    if (lease !== undefined && lease.tokens >= 1 && this.clock.now() < lease.until) {
      lease.tokens -= 1;
      return;
    }
    const answer = await this.ask({ type: LIMITS, kind: "take", id: 0, key: workspaceId });
    if (answer.kind !== "take") return;
    if (answer.wait > 0) throw new RateLimited(answer.wait);
    if (answer.granted > 1) this.lease(workspaceId, answer.granted - 1);
  }

  connected(group: string): boolean | Promise<boolean> {
    if (this.connectionsPerAddress <= 0) return true;
    return this.ask({ type: LIMITS, kind: "connect", id: 0, address: group }).then(
      (answer) => answer.kind === "connect" && answer.kept,
    );
  }

  disconnected(group: string): void {
    if (this.connectionsPerAddress > 0) this.send({ type: LIMITS, kind: "disconnect", address: group });
  }

  /** A message from the supervisor (the worker's `process.on("message")`); others are ignored. */
  receive(message: unknown): void {
    const answer = message as LimitAnswer | null;
    if (answer?.type !== LIMITS) return;
    if (answer.kind === "blocked") {
      if (this.blocked.size >= BLOCKED_MAX) this.blocked.delete(this.blocked.keys().next().value!);
      this.blocked.set(answer.address, this.clock.now() + answer.ms);
      return;
    }
    const resolve = this.waiting.get(answer.id);
    this.waiting.delete(answer.id);
    resolve?.(answer);
  }

  /** Gives back every lease (shutdown), so another worker can use its tokens. */
  close(): void {
    clearInterval(this.sweeper);
    for (const [key, lease] of this.leases) this.giveBack(key, lease.tokens);
    this.leases.clear();
  }

  private lease(key: string, tokens: number): void {
    const now = this.clock.now();
    const held = this.leases.get(key);
    if (held !== undefined && now < held.until) held.tokens += tokens;
    else {
      if (held !== undefined) this.giveBack(key, held.tokens);
      this.leases.set(key, { tokens, until: now + LEASE_MS });
    }
  }

  private giveBackExpired(): void {
    const now = this.clock.now();
    for (const [key, lease] of this.leases) {
      if (now < lease.until) continue;
      this.leases.delete(key);
      this.giveBack(key, lease.tokens);
    }
    for (const [address, until] of this.blocked) if (now >= until) this.blocked.delete(address);
  }

  private giveBack(key: string, tokens: number): void {
    if (tokens >= 1) this.send({ type: LIMITS, kind: "return", key, tokens: Math.floor(tokens) });
  }

  private ask(request: Extract<LimitRequest, { id: number }>): Promise<LimitAnswer> {
    const id = ++this.nextId;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.send({ ...request, id });
    });
  }
}
