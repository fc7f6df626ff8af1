import type { Sql } from '../../db/client.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import { countHit, rateLimited, rateState, refundHit } from './rate-limits.js';

/** Admin login attempts per one-minute window (docs/decisions.md, Admin API and flows). */
export const LOGIN_RATE_LIMITS = {
  /** Per shop and e-mail; a successful login gives its attempt back, so in effect failures count. */
  account: 5,
  /** Per client address, every attempt. */
  address: 30,
} as const;

/**
 * Password checks (scrypt, 32 MiB, ~90 ms on the libuv pool) running at once per process: half of
 * libuv's default pool of 4, so a login flood leaves threads to DNS, files and other crypto.
 */
export const PASSWORD_CHECKS_AT_ONCE = 2;

/** Counts the attempt against the client address (`request.ip`); 429 over the limit. */
export async function throttleLoginAddress(sql: Sql, address: string): Promise<void> {
  const hit = await countHit(sql, `login:ip:${address}`);
  const state = rateState(LOGIN_RATE_LIMITS.address, hit.hits, hit.windowStart);
  if (state.exceeded) throw rateLimited(state.resetSeconds, `too many login attempts from this address; retry in ${state.resetSeconds} s`);
}

/**
 * Counts the attempt against the account (`shopKey` is the shop's id when it exists, so its slug
 * and id share one counter); 429 over the limit. Returns the refund for a successful login.
 */
export async function throttleLoginAccount(sql: Sql, shopKey: string, email: string): Promise<() => Promise<void>> {
  const scope = `login:account:${shopKey}:${email}`;
  const hit = await countHit(sql, scope);
  const state = rateState(LOGIN_RATE_LIMITS.account, hit.hits, hit.windowStart);
  if (state.exceeded) throw rateLimited(state.resetSeconds, `too many login attempts for this account; retry in ${state.resetSeconds} s`);
  return () => refundHit(sql, scope, hit.windowStart);
}

/** Runs a password check in a free slot of `limit`; 429 with `Retry-After: 1` at once when none is free. */
export async function boundedPasswordCheck(limit: ConcurrencyLimit, check: () => Promise<boolean>): Promise<boolean> {
  const release = limit.tryAcquire();
  if (!release) throw rateLimited(1, 'too many logins are being checked right now; retry in 1 s');
  try {
    return await check();
  } finally {
    release();
  }
}
