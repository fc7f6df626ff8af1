import type { Tx } from '../kernel/index.js';

/** An event waiting for its deliveries to start (the `events_enqueue` trigger queues every new event). */
export interface QueuedEvent {
  eventId: string;
  shopId: string;
}

/**
 * The oldest queued events, at most `limit`, locked for the caller's transaction; rows another
 * transaction holds are skipped (`FOR UPDATE SKIP LOCKED`), so several relays share the work.
 */
export async function claimQueuedEvents(tx: Tx, limit: number): Promise<QueuedEvent[]> {
  return tx<QueuedEvent[]>`
    select event_id, shop_id from event_queue order by created_at limit ${limit} for update skip locked`;
}

/** Takes events off the queue, in the transaction that claimed them, once their deliveries started. */
export async function dequeueEvents(tx: Tx, eventIds: readonly string[]): Promise<void> {
  await tx`delete from event_queue where event_id = any(${eventIds as string[]})`;
}
