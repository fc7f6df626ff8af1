import type { Tx } from '../kernel/index.js';

/** An event waiting for its deliveries to start (the `events_enqueue` trigger queues every new event). */
export interface QueuedEvent {
  eventId: string;
  shopId: string;
}

/**
 * Takes the oldest queued events, at most `limit`, off the queue in the caller's transaction: they
 * come back only if it rolls back (a start failed), so the caller commits once every delivery has
 * started. Rows another transaction holds are skipped (`FOR UPDATE SKIP LOCKED`), so several relays
 * share the work. One statement: the claim and the removal are one round trip.
 */
export async function takeQueuedEvents(tx: Tx, limit: number): Promise<QueuedEvent[]> {
  return tx<QueuedEvent[]>`
    with taken as (
      delete from event_queue
      where event_id in (select event_id from event_queue order by created_at limit ${limit} for update skip locked)
      returning event_id, shop_id, created_at)
    select event_id, shop_id from taken order by created_at`;
}
