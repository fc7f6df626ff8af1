import type { Fragment, Tx } from '../kernel/index.js';
import type { StoredEvent } from './event-catalogue.js';

/** An outbox event of the current shop as deliveries render it; undefined once it is gone. */
export async function storedEvent(tx: Tx, eventId: string): Promise<(StoredEvent & { shopId: string }) | undefined> {
  const [event] = await tx<(StoredEvent & { shopId: string })[]>`
    select e.id, e.type, e.created_at, e.changes, e.data, e.shop_id
    from events e
    where e.id = ${eventId}`;
  return event;
}

/** The `data` of the event `eventId` (a column of the caller's query) as a scalar subquery; null once the event is gone. */
export function eventDataOf(tx: Tx, eventId: Fragment): Fragment {
  return tx`(select e.data from events e where e.id = ${eventId})`;
}
