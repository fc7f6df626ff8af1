/**
 * The nearest-rank quantile `q` (0 to 1) of `sorted`, ascending: a value that was measured, never one
 * between two. NaN of no values. The p99 of 100 values is the second largest.
 */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[rankOf(sorted.length, q) - 1]!;
}

/** The middle value (the upper one of an even count; NaN of none), `values` left as they were. */
export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** Which of `count` ascending values, counted from 1, the nearest-rank quantile `q` is. */
export function rankOf(count: number, q: number): number {
  return Math.min(count, Math.max(1, Math.ceil(q * count)));
}
