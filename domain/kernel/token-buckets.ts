/**
 * A token bucket per key (a shop, an account): each gains `perSecond` tokens a second up to `burst`,
 * and a bucket stops at empty, so what a key took while it was not held back is no debt later. A key
 * not seen lately starts with `startTokens` (the burst by default); one untouched for `forgetAfterMs`
 * counts as not seen, and is dropped from the map at the next take after that long.
 */
export class TokenBuckets {
  /** Each key taken from lately: its tokens as of its last take, and when that was. */
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #startTokens: number;
  readonly #forgetAfterMs: number;
  readonly #now: () => number;
  /** When the map was last rid of its forgotten keys. */
  #prunedAt: number;

  readonly perSecond: number;
  readonly burst: number;

  constructor(perSecond: number, burst: number, options: { startTokens?: number; forgetAfterMs?: number; now?: () => number } = {}) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.#startTokens = options.startTokens ?? burst;
    this.#forgetAfterMs = options.forgetAfterMs ?? 60_000;
    this.#now = options.now ?? Date.now;
    this.#prunedAt = this.#now();
  }

  /** The keys taken from within `forgetAfterMs`. */
  keys(): string[] {
    const now = this.#now();
    return [...this.#buckets].filter(([, bucket]) => !this.#forgotten(bucket, now)).map(([key]) => key);
  }

  /** The key's tokens now, fractions included. */
  tokens(key: string): number {
    const now = this.#now();
    const bucket = this.#buckets.get(key);
    if (!bucket || this.#forgotten(bucket, now)) return this.#startTokens;
    return Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1_000);
  }

  /** Takes a token if the key has a whole one; returns whether it had (a refused take changes nothing). */
  take(key: string): boolean {
    if (this.tokens(key) < 1) return false;
    this.spend(key);
    return true;
  }

  /**
   * Uses `count` tokens of the key (one by default) whether it has them or not (an empty bucket stays
   * at empty), and counts the key as used now.
   */
  spend(key: string, count = 1): void {
    const now = this.#now();
    this.#buckets.set(key, { tokens: Math.max(0, this.tokens(key) - count), at: now });
    // At most once per `forgetAfterMs`, so a take costs a map write and no walk over every key.
    if (now - this.#prunedAt > this.#forgetAfterMs) {
      for (const [other, bucket] of this.#buckets) if (this.#forgotten(bucket, now)) this.#buckets.delete(other);
      this.#prunedAt = now;
    }
  }

  /** Gives a token back (a take that turned out not to count), up to the burst. */
  giveBack(key: string): void {
    const bucket = this.#buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }

  /** Seconds until the key has a whole token again (0 when it has one). */
  secondsToNextToken(key: string): number {
    return Math.max(0, Math.ceil((1 - this.tokens(key)) / this.perSecond));
  }

  #forgotten(bucket: { at: number }, now: number): boolean {
    return now - bucket.at > this.#forgetAfterMs;
  }
}
