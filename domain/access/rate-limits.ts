import type { Sql } from '../../db/client.js';
import { Problem } from '../kernel/index.js';

/** The three counters of the spec, one-minute windows. Each request falls in exactly one. */
export const RATE_LIMITS = {
  /** Every path except the two below; per key. Requests with an invalid key count per client IP. */
  general: 600,
  /** Sending messages and private replies; per key. */
  messages: 60,
  /** Creating and cancelling shipments; per shop, shared by its keys. */
  shipments: 60,
} as const;

export type RateCounter = keyof typeof RATE_LIMITS;

export const RATE_WINDOW_SECONDS = 60;

export interface RateState {
  limit: number;
  remaining: number;
  /** Seconds until the window refreshes. */
  resetSeconds: number;
  exceeded: boolean;
}

export function rateState(limit: number, hits: number, windowStart: Date, now = new Date()): RateState {
  const windowEnd = windowStart.getTime() + RATE_WINDOW_SECONDS * 1000;
  return {
    limit,
    remaining: Math.max(0, limit - hits),
    resetSeconds: Math.max(1, Math.ceil((windowEnd - now.getTime()) / 1000)),
    exceeded: hits > limit,
  };
}

/** Counts one hit on `scope` in the current one-minute window (rate_limit_counters, no shop needed). */
export async function countHit(sql: Sql, scope: string): Promise<{ hits: number; windowStart: Date }> {
  const [hit] = await sql<{ hits: number; windowStart: Date }[]>`select * from hit_rate_limit(${scope})`;
  return hit!;
}

/** Counts one hit on `scope`; 429 `rate-limited` (with `Retry-After`) once the window holds more than `limit`: "too many `what`". */
export async function enforceRate(sql: Sql, scope: string, limit: number, what: string): Promise<void> {
  const hit = await countHit(sql, scope);
  const state = rateState(limit, hit.hits, hit.windowStart);
  if (state.exceeded) throw rateLimited(state.resetSeconds, `too many ${what}; retry in ${state.resetSeconds} s`);
}

/** Takes back a hit counted by `countHit`, if its window is still the one counted in. */
export async function refundHit(sql: Sql, scope: string, windowStart: Date): Promise<void> {
  await sql`update rate_limit_counters set hits = hits - 1 where scope = ${scope} and window_start = ${windowStart} and hits > 0`;
}

/** 429 `rate-limited` with `Retry-After`. */
export function rateLimited(
  retryAfterSeconds: number,
  detail = `too many requests in this one-minute window; retry in ${retryAfterSeconds} s`,
): Problem {
  return new Problem('rate-limited', detail, { headers: { 'retry-after': String(retryAfterSeconds) } });
}
