/**
 * The simulator's own time: the real clock plus an offset that controls can move forward, so a test
 * can let 25 hours pass for the messaging window (or 8 days for a private reply) without waiting.
 * Retry back-off and time-outs still use real timers: only the platform's rules read this clock.
 */
export class SimulatorClock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): Date {
    this.offsetMs += ms;
    return this.now();
  }

  /** Jumps to an absolute time (forward or back); later readings move on from there. */
  set(at: Date): Date {
    this.offsetMs = at.getTime() - Date.now();
    return this.now();
  }
}

/** Graph API timestamps: `2024-05-01T09:30:00+0000`. */
export function graphTime(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, '+0000');
}

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
