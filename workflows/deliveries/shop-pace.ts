/**
 * Each shop's pace through the relay while other shops have events too: at most `perSecond` events a
 * second for a shop, in bursts of `burst`, counted per relay process. A shop alone on the queue is not
 * paced (the whole relay is its to use); once another shop has had events within `contendedForMs`,
 * a shop out of tokens is left out of the next claims until its tokens come back. Its events wait in
 * the outbox meanwhile: a shop's burst of thousands cannot saturate the machine under the others.
 */
export class ShopPace {
  readonly #tokens = new Map<string, { tokens: number; at: number }>();
  readonly #lastSeen = new Map<string, number>();

  constructor(
    readonly perSecond = 25,
    readonly burst = 50,
    private readonly now: () => number = Date.now,
    private readonly contendedForMs = 5_000,
  ) {}

  /** The shops to leave out of the next claim: out of tokens while another shop has had events lately. */
  held(): string[] {
    const now = this.now();
    for (const [shopId, seen] of this.#lastSeen) if (now - seen > this.contendedForMs) this.#lastSeen.delete(shopId);
    if (this.#lastSeen.size < 2) return [];
    return [...this.#lastSeen.keys()].filter((shopId) => this.#refreshed(shopId, now) < 1);
  }

  /** How long until a held shop has a token again (0 when none is held). */
  nextTokenInMs(): number {
    return this.held().length > 0 ? Math.ceil(1_000 / this.perSecond) : 0;
  }

  /** A batch was claimed: each event takes a token of its shop, and marks the shop as having events. */
  took(events: readonly { shopId: string }[]): void {
    const now = this.now();
    for (const { shopId } of events) {
      const tokens = this.#refreshed(shopId, now);
      this.#tokens.set(shopId, { tokens: tokens - 1, at: now });
      this.#lastSeen.set(shopId, now);
    }
    // A shop quiet for long is forgotten with its bucket (full again by then).
    if (this.#tokens.size > 10_000)
      for (const [shopId, bucket] of this.#tokens) if (now - bucket.at > this.contendedForMs) this.#tokens.delete(shopId);
  }

  #refreshed(shopId: string, now: number): number {
    const bucket = this.#tokens.get(shopId);
    if (!bucket) return this.burst;
    return Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1_000);
  }
}
