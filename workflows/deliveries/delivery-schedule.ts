const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the immediate first attempt (DESIGN.md, webhook delivery): about 27.5 h in all. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

export const JITTER_RATIO = 0.2;

/**
 * The wait before the next attempt: the scheduled delay with ±20 % jitter, or the receiver's
 * `Retry-After` when that is longer, capped at the schedule's longest step.
 * `random` is in [0, 1); inside a workflow it is Temporal's deterministic Math.random.
 */
export function nextDelayMs(scheduled: number, longest: number, random: number, retryAfterSeconds?: number): number {
  const jittered = Math.round(scheduled * (1 - JITTER_RATIO + 2 * JITTER_RATIO * random));
  if (retryAfterSeconds === undefined) return jittered;
  return Math.min(Math.max(jittered, retryAfterSeconds * SECOND), Math.max(longest, jittered));
}
