import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../domain/kernel/token-buckets.js';

describe('token buckets', () => {
  it('refuses a take past the burst without spending, and gives a token back per second and per give-back', () => {
    let clock = 0;
    const buckets = new TokenBuckets(1, 3, { now: () => clock });
    expect([buckets.take('a'), buckets.take('a'), buckets.take('a'), buckets.take('a')]).toEqual([true, true, true, false]);
    expect(buckets.secondsToNextToken('a')).toBe(1);
    clock += 500;
    // A refused take leaves the half token it found.
    expect(buckets.take('a')).toBe(false);
    clock += 500;
    expect(buckets.take('a')).toBe(true);
    buckets.giveBack('a');
    expect(buckets.take('a')).toBe(true);
    expect(buckets.take('a')).toBe(false);
    // Another key has its own bucket.
    expect(buckets.take('b')).toBe(true);
  });

  it('spends several tokens at once, down to empty and no further', () => {
    const buckets = new TokenBuckets(1, 5, { now: () => 0 });
    buckets.spend('a', 3);
    expect(buckets.tokens('a')).toBe(2);
    buckets.spend('a', 2.5);
    expect(buckets.tokens('a')).toBe(0);
  });

  it('forgets a key untouched for a while, which then begins again from its start, whether or not its keys were listed', () => {
    let clock = 0;
    const buckets = new TokenBuckets(10, 10, { startTokens: 1, forgetAfterMs: 60_000, now: () => clock });
    buckets.spend('quiet');
    clock += 30_000;
    expect(buckets.tokens('quiet')).toBe(10);
    buckets.spend('busy');
    clock += 31_000;
    // Past the minute without a take: one token, not a bucket filled up meanwhile.
    expect(buckets.tokens('quiet')).toBe(1);
    expect(buckets.keys()).toEqual(['busy']);
  });
});
