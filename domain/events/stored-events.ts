import { shopSlugOf } from '../access/index.js';
import type { Fragment, Tx } from '../kernel/index.js';
import type { StoredEvent } from './event-catalogue.js';

/** What the relay reads of an event beyond its envelope. */
export interface RelayedEvent {
  shopId: string;
  shopSlug: string;
  /** The W3C traceparent of the work that wrote it (telemetry/tracing.ts), null while tracing was off. */
  traceParent: string | null;
}

/** An outbox event of the current shop as deliveries render it; undefined once it is gone. */
export async function storedEvent(tx: Tx, eventId: string): Promise<(StoredEvent & RelayedEvent) | undefined> {
  // The shop's slug comes along (the envelope names the shop), so the relay reads each event in one query.
  const [event] = await tx<(StoredEvent & RelayedEvent)[]>`
    select e.id, e.type, e.created_at, e.changes, e.data, e.shop_id, ${shopSlugOf(tx, tx`e.shop_id`)} as shop_slug, e.trace_parent
    from events e
    where e.id = ${eventId}`;
  return event;
}

/** The `data` of the event `eventId` (a column of the caller's query) as a scalar subquery; null once the event is gone. */
export function eventDataOf(tx: Tx, eventId: Fragment): Fragment {
  return tx`(select e.data from events e where e.id = ${eventId})`;
}
