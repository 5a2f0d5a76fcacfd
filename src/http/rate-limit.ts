import { ApiError, crossesProcesses } from "../errors.js";
import type { Clock } from "../lib/clock.js";

/**
 * Per-API-key token bucket (docs/contract.md "Limits"): `perMinute` requests a minute, refilled
 * continuously, bursts up to one minute's worth. With several processes on one host the
 * supervisor holds the buckets and workers lease tokens from it (src/http/shared-limits.ts).
 * Only authenticated keys get a bucket, so unknown keys cannot grow the map.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Takes one request from the key's budget, or throws RESOURCE_EXHAUSTED with the seconds to wait. */
  take(key: string): void {
    this.takeUpTo(key, () => 1);
  }

  /**
   * Takes at least one token of the key's budget and at most `most(tokens left)`: how many it
   * took (a lease for another process, src/http/shared-limits.ts), or throws RESOURCE_EXHAUSTED.
   */
  takeUpTo(key: string, most: (tokens: number) => number): number {
    if (this.perMinute <= 0) return Number.POSITIVE_INFINITY;
    const bucket = this.refilled(key);
    if (bucket.tokens >= 1) {
      const taken = Math.max(1, Math.min(Math.floor(bucket.tokens), most(bucket.tokens)));
      bucket.tokens -= taken;
      return taken;
    }
    const retryAfterS = Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerMs / 1000));
    throw new RateLimited(retryAfterS);
  }

  /** Tokens taken and not used go back to the key's budget (never above a full bucket). */
  giveBack(key: string, tokens: number): void {
    if (this.perMinute <= 0 || !(tokens > 0)) return;
    const bucket = this.refilled(key);
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + tokens);
  }

  private get ratePerMs(): number {
    return this.perMinute / 60_000;
  }

  private refilled(key: string): { tokens: number; at: number } {
    const now = this.clock.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.ratePerMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    return bucket;
  }
}

export class RateLimited extends ApiError {
  constructor(
    override readonly retryAfterS: number,
    reason = "Rate limit exceeded",
  ) {
    super("RESOURCE_EXHAUSTED", `${reason}; retry after ${retryAfterS} s.`);
  }
}
crossesProcesses(RateLimited);

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets for keys anyone can invent (client addresses, presented API keys): at most
 * `capacity` entries. When full, buckets that have refilled (they hold no information) are
 * dropped first, then the oldest eighth: memory stays bounded whatever a stranger sends.
 */
export class BoundedBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly ratePerMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
    private readonly capacity = 10_000,
  ) {
    this.ratePerMs = perMinute / 60_000;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** 0 when `key` has a token left, else the whole seconds until it has one. */
  wait(key: string): number {
    if (this.buckets.size === 0) return 0;
    const bucket = this.refilled(key);
    return bucket === undefined || bucket.tokens >= 1 ? 0 : this.secondsToOne(bucket);
  }

  /** Spends a token of `key`: 0 when there was one, else the whole seconds until there is. */
  spend(key: string): number {
    let bucket = this.refilled(key);
    if (bucket === undefined) {
      this.makeRoom();
      bucket = { tokens: this.perMinute, at: this.clock.now() };
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return this.secondsToOne(bucket);
  }

  private refilled(key: string): Bucket | undefined {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return undefined;
    const now = this.clock.now();
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * this.ratePerMs);
    bucket.at = now;
    return bucket;
  }

  private secondsToOne(bucket: Bucket): number {
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.ratePerMs / 1000));
  }

  /** Milliseconds until `key` has a token again (0: it has one now). */
  msToOne(key: string): number {
    const bucket = this.refilled(key);
    return bucket === undefined || bucket.tokens >= 1 ? 0 : Math.ceil((1 - bucket.tokens) / this.ratePerMs);
  }

  private makeRoom(): void {
    if (this.buckets.size < this.capacity) return;
    const now = this.clock.now();
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (now - bucket.at) * this.ratePerMs >= this.perMinute) this.buckets.delete(key);
    }
    let drop = this.buckets.size >= this.capacity ? Math.ceil(this.capacity / 8) : 0;
    for (const key of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(key);
    }
  }
}

/** API keys longer than this are cut before they key a bucket (real keys are 35 characters). */
const KEY_PREFIX = 128;

/**
 * Makes failed authentication cheap (docs/decisions.md, "Transport abuse"). Each failure
 * spends a token of the client address and of the presented API key. An address out of
 * tokens is refused before its credentials are looked up (no database work); a key out of
 * tokens gets RESOURCE_EXHAUSTED for its further failures, but its right token is never
 * refused, so a stranger who knows a workspace's key cannot lock it out.
 */
export class AuthFailureLimiter {
  private readonly addresses: BoundedBuckets;
  private readonly keys: BoundedBuckets;

  constructor(
    private readonly perMinute: number,
    clock: Clock,
    capacity = 10_000,
  ) {
    this.addresses = new BoundedBuckets(perMinute, clock, capacity);
    this.keys = new BoundedBuckets(perMinute, clock, capacity);
  }

  /** Before authenticating: throws RESOURCE_EXHAUSTED when the address has failed too often. */
  admit(address: string): void {
    if (this.perMinute <= 0) return;
    const wait = this.addresses.wait(address);
    if (wait > 0) throw new RateLimited(wait, "Too many failed authentications from this address");
  }

  /** After a failed authentication: the error to answer (`failure`, or RESOURCE_EXHAUSTED). */
  failed(address: string, apiKey: unknown, failure: unknown): unknown {
    const { wait } = this.spend(address, apiKey);
    return wait > 0 ? tooManyFailures(wait) : failure;
  }

  /**
   * Spends a failure of the address and of the key: `wait`, the seconds until either has a
   * token (0: the failure is answered as itself), and `addressBlockedMs`, how long the
   * address is now refused before its credentials are looked up (0: not refused).
   */
  spend(address: string, apiKey: unknown): { wait: number; addressBlockedMs: number } {
    if (this.perMinute <= 0) return { wait: 0, addressBlockedMs: 0 };
    const byAddress = this.addresses.spend(address);
    const byKey =
      typeof apiKey === "string" && apiKey !== "" ? this.keys.spend(apiKey.slice(0, KEY_PREFIX)) : 0;
    return { wait: Math.max(byAddress, byKey), addressBlockedMs: this.addresses.msToOne(address) };
  }
}

/** RESOURCE_EXHAUSTED for a failed authentication past the limit. */
export const tooManyFailures = (wait: number) => new RateLimited(wait, "Too many failed authentications");
