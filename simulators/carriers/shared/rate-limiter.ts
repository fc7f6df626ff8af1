/**
 * A per-shop cap of requests per second, counted in fixed one-second windows (how both carriers
 * state their limits). `null` means no cap.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>();

  private perSecond: number | null;

  constructor(perSecond: number | null) {
    this.perSecond = perSecond;
  }

  get limit(): number | null {
    return this.perSecond;
  }

  set(perSecond: number | null): void {
    this.perSecond = perSecond;
    this.windows.clear();
  }

  /** Counts the request and says whether it is within the cap. */
  allow(shopKey: string, now = Date.now()): boolean {
    if (this.perSecond === null) return true;
    const window = this.windows.get(shopKey);
    if (!window || now - window.startedAt >= 1_000) {
      this.windows.set(shopKey, { startedAt: now, count: 1 });
      return true;
    }
    if (window.count >= this.perSecond) return false;
    window.count += 1;
    return true;
  }
}
