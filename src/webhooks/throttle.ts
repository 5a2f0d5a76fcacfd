/**
 * Per-endpoint `rateLimit` (deliveries per second) in one delivery worker (docs/webhooks.md
 * "Advanced webhooks"): a token bucket holding at most one second's worth, refilled
 * continuously by the injected clock. A delivery with no token is not dropped: it is handed
 * back due at the next free slot, slots spaced at the rate, so a backlog drains at the rate.
 * Each process keeps its own buckets (as the request rate limits do), so with several
 * processes an endpoint may briefly get up to that many times its rate.
 */
export class EndpointThrottle {
  private readonly buckets = new Map<
    string,
    { rate: number; tokens: number; at: number; nextSlot: number }
  >();

  /** The endpoints with a bucket here. */
  ids(): IterableIterator<string> {
    return this.buckets.keys();
  }

  /** How many more deliveries the endpoint may take now; undefined when it has no rate limit here. */
  allowance(endpointId: string, now: number): number | undefined {
    const bucket = this.buckets.get(endpointId);
    if (!bucket) return undefined;
    this.refill(bucket, now);
    return Math.floor(bucket.tokens);
  }

  /**
   * Takes a token for one delivery now (null: send it), or answers when it is due instead.
   * `rate` null (no limit) forgets the endpoint's bucket.
   */
  admit(endpointId: string, rate: number | null, now: number): number | null {
    if (rate === null) {
      this.buckets.delete(endpointId);
      return null;
    }
    let bucket = this.buckets.get(endpointId);
    if (!bucket || bucket.rate !== rate) {
      bucket = { rate, tokens: Math.min(rate, bucket?.tokens ?? rate), at: now, nextSlot: now };
      this.buckets.set(endpointId, bucket);
    }
    this.refill(bucket, now);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return null;
    }
    const interval = 1000 / rate;
    const nextToken = now + Math.ceil((1 - bucket.tokens) * interval);
    const slot = Math.max(bucket.nextSlot, nextToken);
    bucket.nextSlot = slot + interval;
    return Math.ceil(slot);
  }

  /** Forgets buckets that are full again: they limit nothing, and the map stays as small as the busy endpoints. */
  prune(now: number): void {
    for (const [id, bucket] of this.buckets) {
      this.refill(bucket, now);
      if (bucket.tokens >= bucket.rate && bucket.nextSlot <= now) this.buckets.delete(id);
    }
  }

  private refill(bucket: { rate: number; tokens: number; at: number }, now: number): void {
    if (now > bucket.at) {
      bucket.tokens = Math.min(bucket.rate, bucket.tokens + ((now - bucket.at) * bucket.rate) / 1000);
      bucket.at = now;
    }
  }
}
