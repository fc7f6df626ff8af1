import { describe, expect, it } from 'vitest';
import { retryAfterSeconds, verdictForStatus } from '../../domain/flows/deliveries.js';
import { DEFAULT_RETRY_DELAYS_MS, nextDelayMs } from '../../workflows/deliveries/delivery-workflow.js';

describe('delivery rules', () => {
  it('treats 2xx as delivered, 410 as gone and everything else as retry', () => {
    expect([200, 201, 204, 299].map(verdictForStatus)).toEqual(['delivered', 'delivered', 'delivered', 'delivered']);
    expect(verdictForStatus(410)).toBe('gone');
    expect([301, 302, 304, 400, 401, 404, 429, 500, 503].map(verdictForStatus).every((verdict) => verdict === 'retry')).toBe(true);
  });

  it('reads Retry-After only on 429 and 503, as seconds or an HTTP date', () => {
    const now = new Date('2026-11-22T10:00:00Z');
    expect(retryAfterSeconds(503, '120', now)).toBe(120);
    expect(retryAfterSeconds(429, 'Sun, 22 Nov 2026 10:01:00 GMT', now)).toBe(60);
    expect(retryAfterSeconds(500, '120', now)).toBeUndefined();
    expect(retryAfterSeconds(503, 'soon', now)).toBeUndefined();
  });

  it('schedules 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: about 27.5 h in all', () => {
    const total = DEFAULT_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3_600_000).toBeCloseTo(27.59, 1);
  });

  it('jitters each wait within ±20 % and honours a longer Retry-After up to the longest step', () => {
    const longest = 36_000_000;
    expect(nextDelayMs(5_000, longest, 0)).toBe(4_000);
    expect(nextDelayMs(5_000, longest, 0.999_999)).toBe(6_000);
    expect(nextDelayMs(5_000, longest, 0.5, 60)).toBe(60_000);
    expect(nextDelayMs(5_000, longest, 0.5, 1)).toBe(5_000);
    expect(nextDelayMs(5_000, longest, 0.5, 999_999)).toBe(longest);
  });
});
