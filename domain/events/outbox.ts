import { randomFillSync } from 'node:crypto';
import { context, propagation } from '@opentelemetry/api';
import { monotonicFactory } from 'ulidx';
import type { Sql } from '../../db/client.js';
import { shopSlugOf, writeShopLogs } from '../access/index.js';
import { canonicalJson, type Fragment, type Tx } from '../kernel/index.js';
import type { StoredEvent } from './event-catalogue.js';

/*
 * The transactional outbox, in and out: an event is written in the transaction of the change it
 * records (writeEvent, recordUpdate); the `events_enqueue` trigger queues it; the relay claims it,
 * then completes, releases or sets it aside (claimQueuedEvents and what follows).
 */

/**
 * The ULIDs' random source: bytes drawn from the system 4 KiB at a time. ulidx's own makes a system
 * call per character (16 per id); each byte / 256 falls in [0, 1), uniform over the 32 letters.
 */
export function pooledRandom(poolBytes = 4096): () => number {
  const pool = new Uint8Array(poolBytes);
  let next = poolBytes;
  return () => {
    if (next === poolBytes) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 256;
  };
}

const ulid = monotonicFactory(pooledRandom());

/** Collections whose items are diffed field by field, named `<collection>.<field>` (spec, Events). */
const ITEMIZED_COLLECTIONS = new Set(['variants']);
/** Audit times that move with every write and are not a change of their own. */
const IGNORED_FIELDS = new Set(['updatedAt']);

export type Snapshot = Record<string, unknown>;

export interface Changes {
  fields: string[];
  status?: { from: unknown; to: unknown };
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

function itemizedChanges(name: string, before: unknown, after: unknown): string[] {
  if (!Array.isArray(before) || !Array.isArray(after)) return same(before, after) ? [] : [name];
  const beforeById = new Map(before.map((item: Snapshot) => [item.id, item]));
  const changed = new Set<string>();
  for (const item of after as Snapshot[]) {
    const previous = beforeById.get(item.id);
    if (!previous) {
      changed.add(name);
      continue;
    }
    for (const field of new Set([...Object.keys(previous), ...Object.keys(item)])) {
      if (!same(previous[field], item[field])) changed.add(`${name}.${field}`);
    }
  }
  if (before.length !== after.length) changed.add(name);
  return [...changed];
}

/**
 * What changed between two snapshots in the resource's `GET` shape: `fields` in the order of the
 * `after` shape, `status` as {from, to} when it changed; null when no `data` field changed.
 */
export function diffSnapshots(beforeShape: object, afterShape: object): Changes | null {
  // Every resource shape is a plain JSON object: read it field by field.
  const before = beforeShape as Snapshot;
  const after = afterShape as Snapshot;
  const fields: string[] = [];
  for (const name of new Set([...Object.keys(after), ...Object.keys(before)])) {
    if (IGNORED_FIELDS.has(name)) continue;
    if (ITEMIZED_COLLECTIONS.has(name)) fields.push(...itemizedChanges(name, before[name], after[name]));
    else if (!same(before[name], after[name])) fields.push(name);
  }
  if (fields.length === 0) return null;
  return 'status' in after && !same(before.status, after.status)
    ? { fields, status: { from: before.status, to: after.status } }
    : { fields };
}

export function newEventId(): string {
  return `evt_${ulid()}`;
}

export interface EventInput {
  shopId: string;
  type: string;
  resourceId: string;
  /** The resource in its `GET` shape. */
  data: object;
  changes?: Changes;
}

/** The active span's W3C `traceparent` (telemetry/tracing.ts registers the propagator); null while tracing is off. */
function currentTraceParent(): string | null {
  const carrier: { traceparent?: string } = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/**
 * Inserts one outbox row, in the caller's transaction, with the trace of the work that wrote it (when
 * tracing is on), which the relay continues. Returns the event id.
 */
export async function writeEvent(tx: Tx, event: EventInput): Promise<string> {
  const id = newEventId();
  await tx`
    insert into events (id, shop_id, type, resource_id, changes, data, trace_parent)
    values (${id}, ${event.shopId}, ${event.type}, ${event.resourceId}, ${event.changes ? tx.json(event.changes as never) : null}, ${tx.json(event.data as never)}, ${currentTraceParent()})`;
  return id;
}

/**
 * The emission rules for an edit: `<resource>.updated` with its changes when a `data` field
 * changed, nothing otherwise. Returns the event id, or null when nothing was emitted.
 */
export async function recordUpdate(
  tx: Tx,
  input: { shopId: string; resource: string; resourceId: string; before: object; after: object },
): Promise<string | null> {
  const type = `${input.resource}.updated`;
  const changes = diffSnapshots(input.before, input.after);
  if (changes) return writeEvent(tx, { shopId: input.shopId, type, resourceId: input.resourceId, data: input.after, changes });
  // Nothing in `data` changed: each flow listening stops at its Trigger block, and the shop log says so.
  // listening_flows() is the flows module's (db/migrations/20261122000022_listening_flows.sql): events cannot import flows.
  const listening = await tx<{ id: string }[]>`select id from listening_flows(${type})`;
  await writeShopLogs(
    tx,
    listening.map((flow) => ({
      shopId: input.shopId,
      actorUserId: null,
      action: 'flow.run_skipped',
      subjectType: 'flow',
      subjectId: flow.id,
      details: { eventType: type, resourceId: input.resourceId, reason: 'the change touched no field of the event data' },
    })),
  );
  return null;
}

/** An event waiting for its deliveries to start (the `events_enqueue` trigger queues every new event). */
export interface QueuedEvent {
  eventId: string;
  shopId: string;
  /** How many times matching it to flows has failed so far. */
  failures: number;
  /** How long it waited in the queue until this claim, in milliseconds (the database's clock). */
  waitedMs: number;
}

/**
 * How long a claimed event stays the claimant's. A relay that dies holding a claim delays its events
 * by this much; one that finishes sooner completes or releases them.
 */
export const CLAIM_SECONDS = 30;
/** Matching failures after which an event is set aside (events_set_aside) rather than tried again. */
export const MATCHING_ATTEMPTS = 3;

/**
 * How many events a claim may take of each shop: `byShop` for the shops it names (null: no bound),
 * `others` for the rest (none given: no bound).
 */
export interface ClaimAllowances {
  byShop: ReadonlyMap<string, number | null>;
  others?: number;
}

/**
 * Claims queued events for CLAIM_SECONDS, at most `limit`, in one statement that commits at once: the
 * caller then matches and starts them outside any transaction, and completes, releases or fails each.
 * Each shop takes at most its `allowances` (none at 0): the relay's pace, workflows/deliveries/shop-pace.ts.
 *
 * Fair across shops: the batch is shared equally among the shops with claimable events (the shops
 * whose oldest one has waited longest first, at most `limit` of them), and each shop's share is its
 * oldest events. A shop with a backlog of thousands therefore takes `limit / shops` of a batch, and
 * another shop's first event goes out in the next batch, not after the backlog. One shop alone takes
 * whole batches. A share smaller than a shop's queue leaves the batch short rather than fill it from
 * the backlog.
 *
 * Rows another claim holds are skipped (`FOR UPDATE SKIP LOCKED` while it runs, the lease after), so
 * several relays share the work. The shops are found by a skip scan of `(shop_id, created_at)`. The
 * claim is a materialized CTE, run once: as the inner side of a join PostgreSQL may rescan it per row
 * updated, and each rescan, skipping the rows the statement has just taken, claims the next ones
 * (once, in CI, 214 events for a batch of ten).
 */
export async function claimQueuedEvents(
  sql: Sql | Tx,
  limit: number,
  allowances: ClaimAllowances = { byShop: new Map() },
): Promise<QueuedEvent[]> {
  if (limit < 1) return [];
  const [allowedShops, allowed] = [[...allowances.byShop.keys()], [...allowances.byShop.values()]];
  const others = allowances.others ?? null;
  return sql<QueuedEvent[]>`
    with recursive waiting (shop_id) as (
      (select shop_id from event_queue order by shop_id limit 1)
      union all
      select (select q.shop_id from event_queue q where q.shop_id > s.shop_id order by q.shop_id limit 1)
      from waiting s where s.shop_id is not null),
    served as (
      select s.shop_id, oldest.created_at, share.allowed from waiting s
      left join unnest(${allowedShops}::uuid[], ${allowed}::int[]) as allowance (shop_id, events) on allowance.shop_id = s.shop_id
      cross join lateral (select case when allowance.shop_id is null then ${others}::int else allowance.events end as allowed) share
      cross join lateral (
        select min(q.created_at) as created_at from event_queue q
        where q.shop_id = s.shop_id and (q.claimed_until is null or q.claimed_until < now())) oldest
      where s.shop_id is not null and oldest.created_at is not null and coalesce(share.allowed, 1) > 0
      order by oldest.created_at
      limit ${limit}),
    claimed as materialized (
      select claim.event_id from served cross join lateral (
        select q.event_id from event_queue q
        where q.shop_id = served.shop_id and (q.claimed_until is null or q.claimed_until < now())
        order by q.created_at limit least(${limit} / (select count(*) from served), served.allowed)
        for update skip locked) claim),
    taken as (
      update event_queue q set claimed_until = now() + make_interval(secs => ${CLAIM_SECONDS})
      from claimed where q.event_id = claimed.event_id
      returning q.event_id, q.shop_id, q.created_at, q.failures)
    select event_id, shop_id, failures, (extract(epoch from clock_timestamp() - created_at) * 1000)::int as waited_ms
    from taken order by created_at`;
}

/** Takes events off the queue once every delivery they need has started. */
export async function completeQueuedEvents(sql: Sql | Tx, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length > 0) await sql`delete from event_queue where event_id = any(${eventIds as string[]})`;
}

/** Gives claimed events back at once (a start failed, the relay stops): the next claim takes them again. */
export async function releaseQueuedEvents(sql: Sql | Tx, eventIds: readonly string[]): Promise<void> {
  if (eventIds.length > 0) await sql`update event_queue set claimed_until = null where event_id = any(${eventIds as string[]})`;
}

/**
 * Matching `event` to flows failed (`reason`): it is tried again after 2, then 4 seconds; the
 * MATCHING_ATTEMPTS-th failure moves it to events_set_aside with its reason, off the queue, where an
 * operator finds it (`admin events:set-aside`) and queues it again once the cause is fixed. Returns
 * whether it was set aside.
 */
export async function recordMatchingFailure(sql: Sql, event: QueuedEvent, reason: string): Promise<boolean> {
  // Only the last failure's reason is kept: the one that sets the event aside (the relay logs each).
  const failures = event.failures + 1;
  if (failures < MATCHING_ATTEMPTS) {
    await sql`
      update event_queue set failures = ${failures},
        claimed_until = now() + make_interval(secs => ${2 ** failures})
      where event_id = ${event.eventId}`;
    return false;
  }
  await sql`
    with taken as (delete from event_queue where event_id = ${event.eventId} returning event_id, shop_id, created_at)
    insert into events_set_aside (event_id, shop_id, created_at, failures, reason)
    select event_id, shop_id, created_at, ${failures}, ${reason} from taken
    on conflict (event_id) do update set failures = excluded.failures, reason = excluded.reason, set_aside_at = now()`;
  return true;
}

/** An event taken off the queue because matching it to flows kept failing. */
export interface SetAsideEvent {
  eventId: string;
  shopId: string;
  createdAt: Date;
  failures: number;
  reason: string;
  setAsideAt: Date;
}

/** The events set aside, oldest first (every shop's: an operator's list). */
export async function setAsideEvents(sql: Sql): Promise<SetAsideEvent[]> {
  return sql<SetAsideEvent[]>`
    select event_id, shop_id, created_at, failures, reason, set_aside_at from events_set_aside order by set_aside_at`;
}

/**
 * Puts set-aside events back on the queue with no failures counted, each in its place by creation
 * time (all of them when `eventIds` is absent); returns the ids queued again.
 */
export async function requeueSetAsideEvents(sql: Sql, eventIds?: readonly string[]): Promise<string[]> {
  const rows = await sql<{ eventId: string }[]>`
    with taken as (
      delete from events_set_aside
      where ${eventIds ? sql`event_id = any(${eventIds as string[]})` : sql`true`}
      returning event_id, shop_id, created_at)
    insert into event_queue (event_id, shop_id, created_at) select event_id, shop_id, created_at from taken
    on conflict (event_id) do nothing
    returning event_id`;
  if (rows.length > 0) await sql`select pg_notify('shopflow_events', '')`;
  return rows.map((row) => row.eventId);
}

/**
 * The queue's depth, how long its oldest event has waited (0 s when empty) and how many events are
 * set aside: the relay's lag and what needs an operator, for the metrics.
 */
export async function eventQueueState(sql: Sql | Tx): Promise<{ queued: number; oldestSeconds: number; setAside: number }> {
  const [state] = await sql<{ queued: number; oldestSeconds: number; setAside: number }[]>`
    select count(*)::int as queued,
           coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as oldest_seconds,
           (select count(*)::int from events_set_aside) as set_aside
    from event_queue`;
  return state!;
}

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
