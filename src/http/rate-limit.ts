import { ApiError } from "../errors.js";
import type { Clock } from "../lib/clock.js";

/**
 * Per-API-key token bucket (DESIGN §7): `perMinute` requests a minute, refilled
 * continuously, bursts up to one minute's worth. In-process: with several processes
 * on PostgreSQL each enforces its own budget. Only authenticated keys get a bucket,
 * so unknown keys cannot grow the map.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly clock: Clock,
  ) {}

  /** Takes one request from the key's budget, or throws RESOURCE_EXHAUSTED with the seconds to wait. */
  take(key: string): void {
    if (this.perMinute <= 0) return;
    const now = this.clock.now();
    const ratePerMs = this.perMinute / 60_000;
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + (now - bucket.at) * ratePerMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return;
    }
    const retryAfterS = Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000));
    throw new RateLimited(retryAfterS);
  }
}

export class RateLimited extends ApiError {
  constructor(readonly retryAfterS: number) {
    super("RESOURCE_EXHAUSTED", `Rate limit exceeded; retry after ${retryAfterS} s.`);
  }
}
