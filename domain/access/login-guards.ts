import { availableParallelism } from 'node:os';
import type { Sql } from '../../db/client.js';
import { TokenBuckets } from '../kernel/index.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import { countHit, enforceRate, rateLimited, rateState, refundHit } from './rate-limits.js';

/** Admin login attempts per one-minute window (docs/decisions/0048-admin-logins-are-throttled-where-the-guesser.md). */
export const LOGIN_RATE_LIMITS = {
  /** Per client address, every attempt, whatever the account. */
  address: 30,
  /**
   * Per account (shop and e-mail) and client address; a successful login gives its attempt back, so
   * in effect failures count. Only the guessing address is refused: the owner elsewhere goes on.
   */
  accountAddress: 5,
  /**
   * Per account over every address, failures only. Past it the account is only slowed down, never
   * locked: each address gets one attempt a minute at it, so the owner's right password still passes.
   */
  accountSlowDown: 20,
} as const;

/**
 * Password checks (scrypt, 32 MiB, ~90 ms of a core each, on the libuv pool) running at once per
 * process: half the machine's cores, at least one and at most half of libuv's default pool of 4. A
 * flood of guesses then leaves the other cores to every shop's deliveries and requests (two at once
 * held both cores of a 2-core machine), and pool threads to DNS, files and other crypto.
 */
export const PASSWORD_CHECKS_AT_ONCE = Math.min(2, Math.max(1, Math.floor(availableParallelism() / 2)));
/** Password checks at once per process for logins from a browser the account logged in from before (login-devices.ts), apart from the others. */
export const PASSWORD_CHECKS_KNOWN_DEVICES = 1;

/**
 * Failed password checks per shop and process for logins from browsers the account has not logged in
 * from (login-devices.ts): a burst of 3, then one every 5 seconds. A flood of guesses at one shop is
 * refused before its checks, so it holds no place in the line other shops' members wait in and costs
 * the machine one check every 5 seconds (a check is about 180 ms of a core on a 2 GHz EPYC: one a
 * second was a tenth of a 2-core machine for as long as the flood lasted, docs/capacity.md "Noisy
 * neighbours"); a successful login gives its check back, so members logging in together use none.
 * Logins that name no shop share one bucket.
 */
export const SHOP_FAILED_CHECKS = { perSecond: 0.2, burst: 3 } as const;

/** Each shop's failed password checks, SHOP_FAILED_CHECKS by default: one per process, as the check slots are. */
export function failedChecksPerShop(
  pace: { perSecond: number; burst: number } = SHOP_FAILED_CHECKS,
  options: { now?: () => number } = {},
): ShopFailedChecks {
  return new ShopFailedChecks(new TokenBuckets(pace.perSecond, pace.burst, options));
}

/** The bucket of the logins that name no shop. */
const NO_SUCH_SHOP = 'no such shop';
/** Names kept of shops whose checks ran out; past it they are all forgotten (a refusal then costs its lookups again). */
const SPENT_NAMES_AT_MOST = 10_000;

/**
 * Each shop's failed checks for logins from browsers the account does not know, and the shops whose
 * checks ran out by the name a refused login gave them (its slug, or its id). A flood of guesses
 * naming such a shop is refused before any database work, its address's counter included (a guess
 * refused before its check learns nothing), until the shop has a check again.
 */
export class ShopFailedChecks {
  readonly #spentByName = new Map<string, string>();
  readonly #buckets: TokenBuckets;

  constructor(buckets: TokenBuckets) {
    this.#buckets = buckets;
  }

  /**
   * Before any database work: 429 when the shop named `name` is known to have no failed check left,
   * unless `isKnownDevice(shopId)` (the login's browser is one the account logged in from).
   */
  refuseWhileSpent(name: string, isKnownDevice: (shopId: string) => boolean): void {
    const key = this.#spentByName.get(name);
    if (key === undefined) return;
    if (this.#buckets.tokens(key) >= 1) this.#spentByName.delete(name);
    else if (key === NO_SUCH_SHOP || !isKnownDevice(key)) throw this.#refusal(key);
  }

  /**
   * Takes one of the shop's failed checks (`shopId` undefined: no shop is named `name`); 429 at once
   * when they are spent. Returns the give-back, for a login that ends any other way than a wrong password.
   */
  take(name: string, shopId: string | undefined): () => void {
    const key = shopId ?? NO_SUCH_SHOP;
    if (!this.#buckets.take(key)) {
      if (this.#spentByName.size >= SPENT_NAMES_AT_MOST) this.#spentByName.clear();
      this.#spentByName.set(name, key);
      throw this.#refusal(key);
    }
    return () => this.#buckets.giveBack(key);
  }

  #refusal(key: string): Error {
    const seconds = this.#buckets.secondsToNextToken(key);
    return rateLimited(seconds, `too many wrong passwords for this shop right now; retry in ${seconds} s`);
  }
}

/** Counts the attempt against the client address (`request.ip`); 429 over the limit. */
export async function throttleLoginAddress(sql: Sql, address: string): Promise<void> {
  await enforceRate(sql, `login:ip:${address}`, LOGIN_RATE_LIMITS.address, 'login attempts from this address');
}

/**
 * Counts the attempt against the account from this address and, when that passes, against the
 * account as a whole (`shopKey` is the shop's id when it exists, so its slug and id share the
 * counters); 429 over the limits. Returns the refund for a successful login. Counted before the
 * password check and given back after it, so concurrent guesses cannot all pass the check at once.
 */
export async function throttleLoginAccount(sql: Sql, shopKey: string, email: string, address: string): Promise<() => Promise<void>> {
  const accountScope = `login:account:${shopKey}:${email}`;
  const pairScope = `${accountScope}:${address}`;
  const pair = await countHit(sql, pairScope);
  const pairState = rateState(LOGIN_RATE_LIMITS.accountAddress, pair.hits, pair.windowStart);
  const refused = (seconds: number) =>
    rateLimited(seconds, `too many login attempts for this account from this address; retry in ${seconds} s`);
  // Over its own limit the address does not count against the account: one address cannot slow the owner down.
  if (pairState.exceeded) throw refused(pairState.resetSeconds);
  const account = await countHit(sql, accountScope);
  const slowedDown = rateState(LOGIN_RATE_LIMITS.accountSlowDown, account.hits, account.windowStart).exceeded;
  if (slowedDown && pair.hits > 1) throw refused(pairState.resetSeconds);
  return async () => {
    await refundHit(sql, pairScope, pair.windowStart);
    await refundHit(sql, accountScope, account.windowStart);
  };
}

/**
 * Runs a password check in a slot of `limit`, one at a time per client address; 429 with
 * `Retry-After: 1` when the address already has a check running or no slot frees up in time.
 */
export async function boundedPasswordCheck(limit: ConcurrencyLimit, address: string, check: () => Promise<boolean>): Promise<boolean> {
  const release = await limit.acquire(address);
  if (!release) throw rateLimited(1, 'too many logins are being checked right now; retry in 1 s');
  try {
    return await check();
  } finally {
    release();
  }
}
