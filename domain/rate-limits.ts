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
