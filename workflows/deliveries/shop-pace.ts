import type { ClaimAllowances } from '../../domain/events/index.js';
import { TokenBuckets } from '../../domain/kernel/index.js';

/** A shop's tokens when it begins beside others: one, then its rate (the slow start, docs/capacity.md "Noisy neighbours"). */
const STARTING_TOKENS = 1;
/** A shop whose claimed events waited this long in the outbox has more than its pace lets through: a backlog. */
const BACKLOG_WAIT_MS = 1_000;
/**
 * The machine's busy share above which a backlog's pace halves each second, and below which it rises
 * by one event a second each second; between them it holds. The gap keeps the pace from swinging on
 * every reading. Half the cores, not more: the other shops' deliveries cross several processes, each
 * hop waiting for a core, and a machine 50-70 % busy doubled their p99 in three runs of seventeen
 * (docs/capacity.md, "Noisy neighbours").
 */
const BUSY_ABOVE = 0.5;
const CALM_BELOW = 0.35;
/** The slowest a backlog is paced, however busy the machine: it is served, more slowly. */
const SLOWEST_PER_SECOND = 1;

export interface ShopPaceOptions {
  now?: () => number;
  /** How long after its last event another shop still counts as having events. */
  contendedForMs?: number;
  /**
   * The share of the machine's CPU time busy since the last reading, 0 to 1 (workers/setup/machine-load.ts).
   * With it, a backlog's pace follows the machine's load; without it, it stays at `perSecond`.
   */
  machineBusy?: () => number;
}

/**
 * Each shop's pace through the relay while other shops have events too: at most `perSecond` events a
 * second for a shop, in bursts of `burst`, counted per relay process. A shop alone on the queue is not
 * paced (the whole relay is its to use); once another shop has had events within `contendedForMs`
 * (a minute: a shop with an event every few seconds still counts), each claim takes at most a shop's
 * whole tokens of its events. A shop that begins beside them (new, or back after a quiet minute)
 * starts with one token and gains its rate from there: its first second's starts come one by one,
 * not ten at once. The rest wait in the outbox: a shop's burst of thousands can neither saturate the
 * machine under the others nor fill a batch that their events wait behind.
 *
 * A shop with a backlog (its claimed events had waited BACKLOG_WAIT_MS) is held to a pace of its own
 * that follows the machine's load as well: it begins at SLOWEST_PER_SECOND, rises by one event a
 * second each second the machine is calmer than CALM_BELOW, up to `perSecond`, and halves each second
 * it is busier than BUSY_ABOVE. A fixed pace is a share of one machine: on a slower one the same 10
 * events a second, and the retries they bring, take both cores, and the other shops' deliveries wait
 * for CPU; a backlog that begins slowly adds its load as the machine shows room for it. A shop that
 * keeps up with its own events (every other shop, at its own rate) is never held to it.
 */
export class ShopPace {
  /** Each shop with events lately: forgotten after a quiet `contendedForMs`, to begin again from one token. */
  readonly #buckets: TokenBuckets;
  readonly #now: () => number;
  readonly #machineBusy: (() => number) | undefined;
  /**
   * The shops with a backlog (only with a reading of the machine), each at its pace in events a
   * second: an event of theirs costs `perSecond / pace` tokens of the shop's bucket.
   */
  readonly #backlogs = new Map<string, number>();
  #readAt: number;

  readonly perSecond: number;
  readonly burst: number;

  constructor(perSecond = 10, burst = 10, options: ShopPaceOptions = {}) {
    this.perSecond = perSecond;
    this.burst = burst;
    this.#now = options.now ?? Date.now;
    this.#machineBusy = options.machineBusy;
    this.#buckets = new TokenBuckets(perSecond, burst, {
      startTokens: STARTING_TOKENS,
      forgetAfterMs: options.contendedForMs ?? 60_000,
      now: this.#now,
    });
    this.#readAt = this.#now();
  }

  /**
   * Whether a claimed event is its shop's backlog beside other shops: it waited BACKLOG_WAIT_MS while
   * more than one shop has had events lately. Its deliveries are kept apart from the others' (decision 0266).
   */
  isBacklogBesideOthers(event: { waitedMs: number }): boolean {
    return event.waitedMs >= BACKLOG_WAIT_MS && this.#buckets.keys().length > 1;
  }

  /** The slowest pace of a shop with a backlog now, in events a second (`perSecond` when none has one). */
  get backlogPerSecond(): number {
    return Math.min(this.perSecond, ...this.#backlogs.values());
  }

  /**
   * How many events each shop may have in the next claim: its whole tokens, for every shop with events
   * lately, while more than one has; no bound for a shop alone. A shop with no events lately, beside
   * one that has, takes one (`others`): its first claim would otherwise take the whole batch whenever
   * the others' events happen to be all out at that moment.
   */
  allowances(): ClaimAllowances {
    this.#followLoad();
    const seen = this.#buckets.keys();
    if (seen.length === 0) return { byShop: new Map() };
    if (seen.length === 1) return { byShop: new Map([[seen[0]!, null]]), others: STARTING_TOKENS };
    return {
      byShop: new Map(seen.map((shopId) => [shopId, Math.floor((this.#buckets.tokens(shopId) * this.#pace(shopId)) / this.perSecond)])),
      others: STARTING_TOKENS,
    };
  }

  /** How long until the first shop out of tokens has one event's worth again (0 when none is out). */
  nextTokenInMs(): number {
    const out = [...this.allowances().byShop]
      .filter(([, allowed]) => allowed === 0)
      .map(([shopId]) => ((this.perSecond / this.#pace(shopId) - this.#buckets.tokens(shopId)) * 1_000) / this.perSecond);
    return out.length === 0 ? 0 : Math.max(1, Math.ceil(Math.min(...out)));
  }

  /**
   * A batch was claimed: each event takes its shop's tokens (one, more for a backlog), and marks the
   * shop as having events. A bucket stops at empty: what a shop took unpaced (alone, or in its first
   * claim) is no debt that would hold its events back for long once another shop comes. A shop's
   * claimed events tell whether it has a backlog: any that waited BACKLOG_WAIT_MS, or none.
   */
  took(events: readonly { shopId: string; waitedMs: number }[]): void {
    if (this.#machineBusy) {
      const waited = new Map<string, number>();
      for (const { shopId, waitedMs } of events) waited.set(shopId, Math.max(waited.get(shopId) ?? 0, waitedMs));
      for (const [shopId, longest] of waited) {
        if (longest < BACKLOG_WAIT_MS) this.#backlogs.delete(shopId);
        else if (!this.#backlogs.has(shopId)) this.#backlogs.set(shopId, SLOWEST_PER_SECOND);
      }
    }
    for (const { shopId } of events) this.#buckets.spend(shopId, this.perSecond / this.#pace(shopId));
  }

  /** A shop's pace in events a second: its backlog's, or `perSecond`. An event costs `perSecond / pace` tokens. */
  #pace(shopId: string): number {
    return this.#backlogs.get(shopId) ?? this.perSecond;
  }

  /** At most once a second: each backlog's pace halves while the machine is busy and rises while it is calm. */
  #followLoad(): void {
    const now = this.#now();
    if (!this.#machineBusy || now - this.#readAt < 1_000) return;
    this.#readAt = now;
    const busy = this.#machineBusy();
    const seen = new Set(this.#buckets.keys());
    for (const [shopId, pace] of this.#backlogs) {
      if (!seen.has(shopId)) this.#backlogs.delete(shopId);
      else if (busy > BUSY_ABOVE) this.#backlogs.set(shopId, Math.max(SLOWEST_PER_SECOND, pace / 2));
      else if (busy < CALM_BELOW) this.#backlogs.set(shopId, Math.min(this.perSecond, pace + 1));
    }
  }
}
