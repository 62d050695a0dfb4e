// Per-API-key token buckets on real (monotonic) time: a bucket holds one second of requests; excess gets 429 with Retry-After.

interface Bucket {
  tokens: number;
  last: number;
}

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  take(key: string, ratePerSecond: number): RateDecision {
    const t = this.now();
    const capacity = Math.max(1, ratePerSecond);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = { tokens: capacity, last: t };
      this.buckets.set(key, bucket);
    } else {
      bucket.tokens = Math.min(capacity, bucket.tokens + ((t - bucket.last) / 1000) * ratePerSecond);
      bucket.last = t;
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)) };
  }

  clear(): void {
    this.buckets.clear();
  }
}
