import type { ClaimAllowances } from '../../domain/events/index.js';
import { TokenBuckets } from '../../domain/kernel/index.js';

/** A shop's tokens when it begins beside others: one, then its rate (the slow start, docs/capacity.md "Noisy neighbours"). */
const STARTING_TOKENS = 1;

/**
 * Each shop's pace through the relay while other shops have events too: at most `perSecond` events a
 * second for a shop, in bursts of `burst`, counted per relay process. A shop alone on the queue is not
 * paced (the whole relay is its to use); once another shop has had events within `contendedForMs`
 * (a minute: a shop with an event every few seconds still counts), each claim takes at most a shop's
 * whole tokens of its events. A shop that begins beside them (new, or back after a quiet minute)
 * starts with one token and gains its rate from there: its first second's starts come one by one,
 * not ten at once. The rest wait in the outbox: a shop's burst of thousands can neither saturate the
 * machine under the others nor fill a batch that their events wait behind.
 */
export class ShopPace {
  /** Each shop with events lately: forgotten after a quiet `contendedForMs`, to begin again from one token. */
  readonly #buckets: TokenBuckets;

  constructor(
    readonly perSecond = 10,
    readonly burst = 10,
    now: () => number = Date.now,
    contendedForMs = 60_000,
  ) {
    this.#buckets = new TokenBuckets(perSecond, burst, { startTokens: STARTING_TOKENS, forgetAfterMs: contendedForMs, now });
  }

  /**
   * How many events each shop may have in the next claim: its whole tokens, for every shop with events
   * lately, while more than one has; no bound for a shop alone. A shop with no events lately, beside
   * one that has, takes one (`others`): its first claim would otherwise take the whole batch whenever
   * the others' events happen to be all out at that moment.
   */
  allowances(): ClaimAllowances {
    const seen = this.#buckets.keys();
    if (seen.length === 0) return { byShop: new Map() };
    if (seen.length === 1) return { byShop: new Map([[seen[0]!, null]]), others: STARTING_TOKENS };
    return {
      byShop: new Map(seen.map((shopId) => [shopId, Math.floor(this.#buckets.tokens(shopId))])),
      others: STARTING_TOKENS,
    };
  }

  /** How long until a shop out of tokens has one again (0 when none is out). */
  nextTokenInMs(): number {
    return [...this.allowances().byShop.values()].includes(0) ? Math.ceil(1_000 / this.perSecond) : 0;
  }

  /**
   * A batch was claimed: each event takes a token of its shop, and marks the shop as having events.
   * A bucket stops at empty: what a shop took unpaced (alone, or in its first claim) is no debt that
   * would hold its events back for long once another shop comes.
   */
  took(events: readonly { shopId: string }[]): void {
    for (const { shopId } of events) this.#buckets.spend(shopId);
  }
}
