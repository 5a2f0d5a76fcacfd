import { performance } from "node:perf_hooks";
import type { HostResolver, ResolvedAddress, ResolveOptions } from "../lib/host-resolver.js";
import { WorkspaceShares } from "./shares.js";

/** What one DNS query answers: the addresses and how long they may be reused. */
export interface LookupAnswer {
  readonly addresses: readonly ResolvedAddress[];
  readonly ttlMs: number;
}

/** One DNS query; must stop (and reject) when `signal` aborts. */
export type Lookup = (host: string, signal: AbortSignal) => Promise<LookupAnswer>;

export interface FairResolverOptions {
  /** No query outlives this, however long the resolver's own retries would take. */
  readonly timeoutMs: number;
  /** Queries one workspace may have in flight; its further lookups queue behind them. */
  readonly perWorkspace: number;
  /** Answers kept at most this long, even when their TTL is longer. */
  readonly maxTtlMs?: number;
  /** Host names remembered at most (least recently stored are dropped first). */
  readonly maxEntries?: number;
  /** Monotonic milliseconds, for cache expiry. */
  readonly now?: () => number;
}

interface Flight {
  readonly promise: Promise<readonly ResolvedAddress[]>;
  readonly abort: AbortController;
  waiters: number;
}

/** Answers are reused at least this long, whatever their TTL. */
const MIN_TTL_MS = 1000;

/** RFC 6761: these names are the loopback host and never go to DNS. */
const LOOPBACK_NAME = /^localhost\.?$|\.localhost\.?$/i;
const LOOPBACK: readonly ResolvedAddress[] = Object.freeze([
  { address: "127.0.0.1", family: 4 },
  { address: "::1", family: 6 },
]);

/**
 * Host resolution that one tenant cannot use to starve another (docs/webhooks.md):
 * answers are cached for their TTL (bounded), concurrent lookups of one name share one
 * query, each workspace has at most `perWorkspace` queries in flight, every query has
 * its own deadline, and a query nobody waits for any more is cancelled.
 */
export class FairResolver implements HostResolver {
  private readonly cache = new Map<string, { addresses: readonly ResolvedAddress[]; expires: number }>();
  private readonly flights = new Map<string, Flight>();
  private readonly shares: WorkspaceShares;
  private readonly maxTtlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(
    private readonly lookup: Lookup,
    private readonly options: FairResolverOptions,
  ) {
    this.shares = new WorkspaceShares(options.perWorkspace);
    this.maxTtlMs = options.maxTtlMs ?? 60_000;
    this.maxEntries = options.maxEntries ?? 1000;
    this.now = options.now ?? (() => performance.now());
  }

  resolve(host: string, options: ResolveOptions = {}): Promise<readonly ResolvedAddress[]> {
    const name = host.toLowerCase();
    if (LOOPBACK_NAME.test(name)) return Promise.resolve(LOOPBACK);
    const cached = this.cache.get(name);
    if (cached) {
      if (cached.expires > this.now()) return Promise.resolve(cached.addresses);
      this.cache.delete(name);
    }
    const flight = this.flights.get(name) ?? this.start(name, options.workspaceId ?? "");
    return this.wait(flight, options.signal);
  }

  /** Queries in flight, and lookups queued for a share, of one workspace (for tests and metrics). */
  load(workspaceId: string): { active: number; queued: number } {
    return this.shares.load(workspaceId);
  }

  private start(name: string, workspaceId: string): Flight {
    const abort = new AbortController();
    const flight: Flight = { abort, waiters: 0, promise: this.query(name, workspaceId, abort.signal) };
    this.flights.set(name, flight);
    const forget = () => {
      if (this.flights.get(name) === flight) this.flights.delete(name);
    };
    flight.promise.then(forget, forget);
    return flight;
  }

  private async query(name: string, workspaceId: string, signal: AbortSignal) {
    const timeout = new AbortController();
    const both = AbortSignal.any([signal, timeout.signal]);
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        const error = Object.assign(
          new Error(`DNS lookup of ${name} timed out after ${this.options.timeoutMs} ms.`),
          { code: "ETIMEOUT" },
        );
        timeout.abort(error);
        reject(error);
      }, this.options.timeoutMs);
    });
    expired.catch(() => {});
    try {
      // The deadline covers the wait for a share too: nothing here outlives it.
      const acquired = this.shares.acquire(workspaceId, both);
      await Promise.race([acquired, expired]).catch((error: unknown) => {
        // A share granted just as the deadline passed is handed back, not leaked.
        acquired.then(
          () => this.shares.release(workspaceId),
          () => {},
        );
        throw error;
      });
      try {
        const answer = await Promise.race([this.lookup(name, both), expired]);
        if (answer.addresses.length === 0) {
          throw Object.assign(new Error(`No address for ${name}.`), { code: "ENOTFOUND" });
        }
        this.remember(name, answer);
        return answer.addresses;
      } finally {
        this.shares.release(workspaceId);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(name: string, answer: LookupAnswer): void {
    // At least a second even for TTL 0: otherwise every delivery to such a host is a query.
    const ttl = Math.min(Math.max(answer.ttlMs, MIN_TTL_MS), this.maxTtlMs);
    if (this.cache.size >= this.maxEntries) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(name, { addresses: Object.freeze([...answer.addresses]), expires: this.now() + ttl });
  }

  /** One waiter on a shared query; the query is cancelled once its last waiter gives up. */
  private wait(flight: Flight, signal: AbortSignal | undefined): Promise<readonly ResolvedAddress[]> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    flight.waiters += 1;
    return new Promise((resolve, reject) => {
      let done = false;
      const leave = () => {
        if (done) return false;
        done = true;
        signal?.removeEventListener("abort", onAbort);
        flight.waiters -= 1;
        if (flight.waiters === 0) flight.abort.abort();
        return true;
      };
      const onAbort = () => {
        if (leave()) reject(abortReason(signal!));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      flight.promise.then(
        (addresses) => leave() && resolve(addresses),
        (error: unknown) => leave() && reject(error),
      );
    });
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : Object.assign(new Error("The lookup was aborted."), { name: "AbortError" });
}
