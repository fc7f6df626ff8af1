import { purgeOlderThan, type Tx } from '../kernel/index.js';

/**
 * Housekeeping, in an `asHousekeeping` transaction: events of every shop older than the retention (at
 * least one day), at most `limit` of them, the oldest first. Row-level security shows housekeeping
 * only events past their use (db/migrations/20261128002600_events_and_deliveries_retention.sql): off
 * the relay's queue, and needed by no delivery in flight or failed (a resend renders the stored event
 * again). Returns how many went.
 */
export function purgeOldEvents(tx: Tx, retentionDays: number, limit: number): Promise<number> {
  return purgeOlderThan(tx, 'events', 'created_at', retentionDays, limit);
}
