import type { Tx } from '../kernel/index.js';

/** An event waiting for its deliveries to start (the `events_enqueue` trigger queues every new event). */
export interface QueuedEvent {
  eventId: string;
  shopId: string;
}

/**
 * Takes queued events off the queue, at most `limit`, in the caller's transaction: they come back
 * only if it rolls back (a start failed), so the caller commits once every delivery has started.
 *
 * Fair across shops: the batch is shared equally among the shops with queued events (the shops whose
 * oldest event has waited longest first, at most `limit` of them), and each shop's share is its
 * oldest events. A shop with a backlog of thousands therefore takes `limit / shops` of a batch, and
 * another shop's first event goes out in the next batch, not after the backlog. One shop alone takes
 * whole batches. A share smaller than a shop's queue leaves the batch short rather than fill it from
 * the backlog, so nothing is claimed and then left locked.
 *
 * Rows another transaction holds are skipped (`FOR UPDATE SKIP LOCKED`, per shop), so several relays
 * share the work. One statement: the shops are found by a skip scan of `(shop_id, created_at)`, and
 * the claim and the removal are one round trip. The claim is a materialized CTE, run once: as the
 * inner side of a join PostgreSQL may rescan it per row deleted, and each rescan, skipping the rows
 * the statement has just deleted, claims the next ones (once, in CI, 214 events for a batch of ten).
 */
export async function takeQueuedEvents(tx: Tx, limit: number): Promise<QueuedEvent[]> {
  if (limit < 1) return [];
  return tx<QueuedEvent[]>`
    with recursive waiting (shop_id) as (
      (select shop_id from event_queue order by shop_id limit 1)
      union all
      select (select q.shop_id from event_queue q where q.shop_id > s.shop_id order by q.shop_id limit 1)
      from waiting s where s.shop_id is not null),
    served as (
      select s.shop_id from waiting s where s.shop_id is not null
      order by (select min(q.created_at) from event_queue q where q.shop_id = s.shop_id)
      limit ${limit}),
    claimed as materialized (
      select claim.event_id from served cross join lateral (
        select q.event_id from event_queue q where q.shop_id = served.shop_id
        order by q.created_at limit ${limit} / (select count(*) from served)
        for update skip locked) claim),
    taken as (
      delete from event_queue q using claimed where q.event_id = claimed.event_id
      returning q.event_id, q.shop_id, q.created_at)
    select event_id, shop_id from taken order by created_at`;
}

/** The queue's depth and how long its oldest event has waited (0 s when empty): the relay's lag, for the metrics. */
export async function eventQueueState(tx: Tx): Promise<{ queued: number; oldestSeconds: number }> {
  const [state] = await tx<{ queued: number; oldestSeconds: number }[]>`
    select count(*)::int as queued,
           coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_seconds
    from event_queue`;
  return state!;
}
