/**
 * In-memory token buckets, one per client key. A bucket holds up to `burst` tokens and refills at
 * `perMinute / 60` tokens a second; a request takes one token or is refused with the seconds until the
 * next one. A full bucket is the same as no bucket, so full buckets are dropped to bound memory.
 */
export type TakeResult = { allowed: true } | { allowed: false; retryAfterSeconds: number };

type Bucket = { tokens: number; updatedAt: number };

const ALLOWED: TakeResult = { allowed: true };
const SWEEP_INTERVAL_MS = 60_000;

export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();
  readonly #tokensPerMs: number;
  readonly #burst: number;
  readonly #maxBuckets: number;
  #lastSweep = 0;

  constructor(options: { perMinute: number; burst: number; maxBuckets?: number }) {
    if (!(options.perMinute > 0) || !(options.burst >= 1))
      throw new Error('a token bucket needs perMinute > 0 and burst >= 1');
    this.#tokensPerMs = options.perMinute / 60_000;
    this.#burst = options.burst;
    this.#maxBuckets = options.maxBuckets ?? 100_000;
  }

  get size(): number {
    return this.#buckets.size;
  }

  take(key: string, nowMs: number): TakeResult {
    if (nowMs - this.#lastSweep >= SWEEP_INTERVAL_MS || this.#buckets.size >= this.#maxBuckets) this.#sweep(nowMs);
    let bucket = this.#buckets.get(key);
    if (bucket) {
      // A clock that steps backwards refills nothing rather than draining the bucket.
      bucket.tokens = Math.min(this.#burst, bucket.tokens + Math.max(0, nowMs - bucket.updatedAt) * this.#tokensPerMs);
      bucket.updatedAt = nowMs;
    } else {
      bucket = { tokens: this.#burst, updatedAt: nowMs };
      this.#buckets.set(key, bucket);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ALLOWED;
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#tokensPerMs / 1000)),
    };
  }

  /** Drops refilled buckets; if a flood of distinct clients still fills the map, the oldest go first. */
  #sweep(nowMs: number): void {
    this.#lastSweep = nowMs;
    for (const [key, bucket] of this.#buckets) {
      if (bucket.tokens + Math.max(0, nowMs - bucket.updatedAt) * this.#tokensPerMs >= this.#burst)
        this.#buckets.delete(key);
    }
    const excess = this.#buckets.size - Math.floor(this.#maxBuckets * 0.9);
    if (excess <= 0) return;
    let dropped = 0;
    for (const key of this.#buckets.keys()) {
      if (dropped++ >= excess) break;
      this.#buckets.delete(key);
    }
  }
}
