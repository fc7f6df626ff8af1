import type { Tx } from '../kernel/index.js';
import { IDEMPOTENCY_WINDOW_HOURS } from './idempotency.js';

export interface RequestGuardPurge {
  rateLimitWindows: number;
  idempotencyKeys: number;
  adminSessions: number;
}

/**
 * Housekeeping, in an `asHousekeeping` transaction: the request guards no request reads any more.
 * Counters of past rate-limit windows, idempotency records past their 24-hour window, admin sessions
 * past their expiry; the rows of every shop. Returns how many rows of each went.
 */
export async function purgeRequestGuards(tx: Tx): Promise<RequestGuardPurge> {
  const windows = await tx`delete from rate_limit_counters where window_start < now() - interval '2 minutes'`;
  const keys = await tx`delete from idempotency_keys where created_at < now() - make_interval(hours => ${IDEMPOTENCY_WINDOW_HOURS})`;
  const sessions = await tx`delete from admin_sessions where expires_at < now()`;
  return { rateLimitWindows: windows.count, idempotencyKeys: keys.count, adminSessions: sessions.count };
}
