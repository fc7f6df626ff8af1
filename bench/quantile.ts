/**
 * The nearest-rank quantile `q` (0 to 1) of `sorted`, ascending: a value that was measured, never one
 * between two. NaN of no values. The p99 of 100 values is the second largest.
 */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[rankOf(sorted.length, q) - 1]!;
}

/** Which of `count` ascending values, counted from 1, the nearest-rank quantile `q` is. */
export function rankOf(count: number, q: number): number {
  return Math.min(count, Math.max(1, Math.ceil(q * count)));
}
