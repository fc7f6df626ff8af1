import { z } from 'zod';
import { Problem, type Fragment, type Tx } from '../kernel/index.js';

/**
 * A flow's health from its recorded attempts (test-runs left out): per hour, the deliveries created,
 * the attempts and those the receiver took (2xx), and its answer time; the last failure's answer.
 *
 * What happened is summed into `flow_health_hours` by the housekeeping schedule and by whoever reads
 * health (never on the delivery path, which writes only its attempt), in steps of five minutes up to
 * five minutes ago, each added
 * once to its hour's row; the last five to ten minutes are read from the attempts
 * (`delivery_attempts_attempted_idx`). Five minutes is the settling time: an attempt is recorded
 * when its answer is in (the timeout is 15 s) or, when that record fails, by the workflow soon after;
 * one recorded later than that is left out of the sums.
 */
const HEALTH_HOURS = 168;

/**
 * Upper bounds (ms, exclusive) of the latency buckets: each at most 25% above its lower bound, so the
 * middle of the bucket holding a percentile, in whole ms, is within 12.5% of the exact value (exact
 * below 8 ms). Bucket 0 holds 0 ms; the last one everything from a minute up (an attempt times out at 15 s).
 */
const LATENCY_BOUNDS_MS: readonly number[] = (() => {
  const bounds = [1];
  while (bounds.at(-1)! < 60_000) bounds.push(Math.max(bounds.at(-1)! + 1, Math.floor(bounds.at(-1)! * 1.25)));
  return bounds;
})();
/** What LATENCY_BOUNDS_MS promise of p50 and p99 (percent of the exact value). */
const LATENCY_ERROR_PERCENT = 12.5;

const Count = z.number().int().min(0);
const Milliseconds = z.number().int().nullable();

const FlowHealthHour = z
  .object({
    hour: z.string().describe('When the hour began'),
    deliveries: Count.describe('Deliveries with an attempt in the hour (one retried over several hours counts in each)'),
    attempts: Count,
    succeeded: Count.describe('Attempts the receiver answered 2xx'),
    p50Ms: Milliseconds.describe('Median answer time of the answered attempts; null without any'),
    p99Ms: Milliseconds,
  })
  .meta({ id: 'AdminFlowHealthHour' });

const FlowHealthWindow = z
  .object({
    attempts: Count,
    succeeded: Count,
    successRate: z.number().min(0).max(1).nullable().describe('succeeded / attempts; null without attempts'),
    p50Ms: Milliseconds,
    p99Ms: Milliseconds,
  })
  .meta({ id: 'AdminFlowHealthWindow' });

export const FlowHealth = z
  .object({
    flowId: z.uuid(),
    hours: z.array(FlowHealthHour).describe(`The last ${HEALTH_HOURS} hours, oldest first, the current one last (so far)`),
    last24Hours: FlowHealthWindow,
    last7Days: FlowHealthWindow,
    lastFailure: z
      .object({
        at: z.string(),
        statusCode: z.number().int().nullable().describe("The receiver's status; null when no answer came"),
        error: z.string().nullable().describe('Why no answer came (timeout, refused connection…)'),
      })
      .nullable()
      .describe('The latest attempt that was not a 2xx, in the last 7 days'),
    latencyErrorPercent: z.number().describe('p50 and p99 are read from fixed buckets: within this many percent of the exact value'),
  })
  .meta({ id: 'AdminFlowHealth' });
export type FlowHealth = z.infer<typeof FlowHealth>;

export const FlowSparkline = z
  .object({
    flowId: z.uuid(),
    attempts: z.array(Count).describe('Attempts per hour over the last 24 hours, oldest first, the current one last'),
    succeeded: Count.describe('Of them, answered 2xx'),
  })
  .meta({ id: 'AdminFlowSparkline' });
export type FlowSparkline = z.infer<typeof FlowSparkline>;

type HourFigures = z.infer<typeof FlowHealthHour>;
interface StoredHour {
  flowId: string;
  hour: Date;
  deliveries: number;
  attempts: number;
  succeeded: number;
  latencyBuckets: number[];
  lastFailureAt: Date | null;
  lastFailureStatus: number | null;
  lastFailureError: string | null;
}

/**
 * Each (flow, hour) in [from, to) (to: null, up to now), one flow's or all: what a row of
 * flow_health_hours holds, the same sums for the rollup and for the hours read live. One pass over the
 * attempts, grouped by hash (flow, hour, latency bucket: no sort, no distinct); the deliveries of an
 * hour are those created in it (deliveries_flow_idx); the last failure's answer is looked up by its
 * time (delivery_attempts_attempted_idx), once an hour.
 */
function hourlyFigures(tx: Tx, from: Date, to: Date | null, flowId: string | null): Fragment {
  const inRange = (column: Fragment) => tx`${column} >= ${from} ${to ? tx`and ${column} < ${to}` : tx``}`;
  const ofFlow = flowId ? tx`and d.flow_id = ${flowId}` : tx``;
  return tx`
    with counted as (
      select d.flow_id, date_trunc('hour', a.attempted_at, 'UTC') as hour,
        case when a.status_code is not null then width_bucket(a.duration_ms, ${LATENCY_BOUNDS_MS as number[]}::int[]) end as bucket,
        count(*)::int as attempts, (count(*) filter (where a.verdict = 'delivered'))::int as succeeded,
        max(a.attempted_at) filter (where a.verdict <> 'delivered') as last_failure_at
      from delivery_attempts a join deliveries d on d.delivery_id = a.delivery_id
      where ${inRange(tx`a.attempted_at`)} and not d.test_run ${ofFlow}
      group by 1, 2, 3
    ), hours as (
      select flow_id, hour, sum(attempts)::int as attempts, sum(succeeded)::int as succeeded, max(last_failure_at) as last_failure_at,
        (select array_agg(coalesce(answered.n, 0) order by bucket.i) from generate_series(0, ${LATENCY_BOUNDS_MS.length}) as bucket (i)
           left join unnest(array_agg(counted.bucket), array_agg(counted.attempts)) as answered (b, n) on answered.b = bucket.i) as latency_buckets
      from counted group by 1, 2
    ), created as (
      select d.flow_id, date_trunc('hour', d.created_at, 'UTC') as hour, count(*)::int as deliveries
      from deliveries d where ${inRange(tx`d.created_at`)} and not d.test_run ${ofFlow}
      group by 1, 2
    )
    select coalesce(h.flow_id, c.flow_id) as flow_id, coalesce(h.hour, c.hour) as hour, coalesce(c.deliveries, 0) as deliveries,
      coalesce(h.attempts, 0) as attempts, coalesce(h.succeeded, 0) as succeeded, coalesce(h.latency_buckets, '{}') as latency_buckets,
      h.last_failure_at, failure.status_code as last_failure_status, failure.error as last_failure_error
    from hours h
    left join lateral (
      select a.status_code, left(a.error, 300) as error from delivery_attempts a join deliveries d on d.delivery_id = a.delivery_id
      where a.attempted_at = h.last_failure_at and d.flow_id = h.flow_id and a.verdict <> 'delivered' and not d.test_run limit 1) as failure on true
    full join created c on c.flow_id = h.flow_id and c.hour = h.hour`;
}

interface Span {
  /** Where the summed hours end and the live ones begin. */
  rolledUpTo: Date;
  /** The first of the HEALTH_HOURS hours shown. */
  firstHour: Date;
}

/**
 * Adds to the shop's hours what happened since the last sum (within the HEALTH_HOURS shown) and
 * forgets older hours. One reader a shop at a time (a transaction lock: the delivery path never takes
 * it), so each step is added once; a second reader waits, then finds it done.
 */
async function rollUpClosedHours(tx: Tx): Promise<Span> {
  await tx`select pg_advisory_xact_lock(hashtextextended('flow-health:' || current_shop_id()::text, 0))`;
  // Each query planned for its own times: a generic plan guesses a third of the attempts for `>= $1`
  // and scans them all where the index finds the last minutes'.
  await tx`set local plan_cache_mode = force_custom_plan`;
  const [span] = await tx<(Span & { from: Date })[]>`
    select greatest((select rolled_up_to from flow_health_rollups), hours.first_hour) as from, hours.first_hour,
      date_bin('5 minutes', now() - interval '5 minutes', timestamptz 'epoch') as rolled_up_to
    from (select date_trunc('hour', now(), 'UTC') - make_interval(hours => ${HEALTH_HOURS - 1}) as first_hour) as hours`;
  const { from, ...shown } = span!;
  if (from >= shown.rolledUpTo) return shown;
  // A week unread is millions of attempts: grouped and joined in memory rather than on disk.
  await tx`set local work_mem = '64MB'`;
  await tx`
    insert into flow_health_hours as kept (flow_id, hour, deliveries, attempts, succeeded, latency_buckets, last_failure_at,
                                           last_failure_status, last_failure_error, shop_id)
    select *, current_shop_id() from (${hourlyFigures(tx, from, shown.rolledUpTo, null)}) as figures
    on conflict (flow_id, hour) do update set
      deliveries = kept.deliveries + excluded.deliveries, attempts = kept.attempts + excluded.attempts,
      succeeded = kept.succeeded + excluded.succeeded,
      latency_buckets = array(select coalesce(was, 0) + coalesce(added, 0) from unnest(kept.latency_buckets, excluded.latency_buckets) as b (was, added)),
      last_failure_at = greatest(kept.last_failure_at, excluded.last_failure_at),
      last_failure_status = case when excluded.last_failure_at > kept.last_failure_at or kept.last_failure_at is null
                                 then excluded.last_failure_status else kept.last_failure_status end,
      last_failure_error = case when excluded.last_failure_at > kept.last_failure_at or kept.last_failure_at is null
                                then excluded.last_failure_error else kept.last_failure_error end`;
  await tx`
    insert into flow_health_rollups (shop_id, rolled_up_to) values (current_shop_id(), ${shown.rolledUpTo})
    on conflict (shop_id) do update set rolled_up_to = excluded.rolled_up_to`;
  await tx`delete from flow_health_hours where hour < ${shown.firstHour}`;
  return shown;
}

/**
 * Sums what the current shop's flows did up to five minutes ago: the housekeeping schedule's step,
 * every five minutes, so that a reader finds at most a step to add.
 */
export async function rollUpFlowHealth(tx: Tx): Promise<void> {
  await rollUpClosedHours(tx);
}

/**
 * The shops with flows, whose health the housekeeping schedule keeps summed (in an `asHousekeeping`
 * transaction): a flow switched off keeps the attempts it made, and its first reader must find them
 * summed, not sum them all under the statement time-out. A shop with nothing new costs one short read.
 */
export async function shopsWithFlows(tx: Tx): Promise<string[]> {
  const shops = await tx<{ shopId: string }[]>`select distinct shop_id from flows`;
  return shops.map((shop) => shop.shopId);
}

/** The hours of one flow or all from `from`: each the sum kept and what happened since, added. */
async function hoursOf(tx: Tx, span: Span, from: Date, flowId: string | null): Promise<StoredHour[]> {
  const rows = await tx<StoredHour[]>`
    select flow_id, hour, deliveries, attempts, succeeded, latency_buckets, last_failure_at, last_failure_status, last_failure_error
    from flow_health_hours where hour >= ${from} ${flowId ? tx`and flow_id = ${flowId}` : tx``}
    union all
    select * from (${hourlyFigures(tx, span.rolledUpTo, null, flowId)}) as live`;
  const hours = new Map<string, StoredHour>();
  for (const row of rows) {
    const key = `${row.flowId} ${row.hour.getTime()}`;
    const kept = hours.get(key);
    if (!kept) {
      hours.set(key, row);
      continue;
    }
    const later = (row.lastFailureAt?.getTime() ?? 0) > (kept.lastFailureAt?.getTime() ?? 0) ? row : kept;
    hours.set(key, {
      ...later,
      deliveries: kept.deliveries + row.deliveries,
      attempts: kept.attempts + row.attempts,
      succeeded: kept.succeeded + row.succeeded,
      latencyBuckets: addBuckets([...kept.latencyBuckets], row.latencyBuckets),
    });
  }
  return [...hours.values()];
}

/** The p-th percentile (nearest rank) of the attempts counted per bucket: the middle of its bucket, in whole ms. */
function percentileOf(buckets: readonly number[], p: number): number | null {
  const total = buckets.reduce((sum, count) => sum + count, 0);
  if (total === 0) return null;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (const [bucket, count] of buckets.entries()) {
    seen += count;
    if (seen < rank) continue;
    const low = bucket === 0 ? 0 : LATENCY_BOUNDS_MS[bucket - 1]!;
    const high = LATENCY_BOUNDS_MS[bucket];
    return high === undefined ? low : Math.round((low + high - 1) / 2);
  }
  return null;
}

function addBuckets(into: number[], more: readonly number[]): number[] {
  for (const [bucket, count] of more.entries()) into[bucket] = (into[bucket] ?? 0) + count;
  return into;
}

const HOUR_MS = 3_600_000;

/** The flow's health over the last 24 hours and 7 days, hour by hour; 404 for a flow not the shop's. */
export async function flowHealth(tx: Tx, flowId: string): Promise<FlowHealth> {
  const [flow] = await tx`select 1 from flows where id = ${flowId}`;
  if (!flow) throw new Problem('not-found', `no flow ${flowId}`);
  const span = await rollUpClosedHours(tx);
  const rows = await hoursOf(tx, span, span.firstHour, flowId);
  const byHour = new Map(rows.map((row) => [row.hour.getTime(), row]));
  const slots = Array.from({ length: HEALTH_HOURS }, (_, index) => {
    const at = span.firstHour.getTime() + index * HOUR_MS;
    return { at, row: byHour.get(at) };
  });
  const hours: HourFigures[] = slots.map(({ at, row }) => ({
    hour: new Date(at).toISOString(),
    deliveries: row?.deliveries ?? 0,
    attempts: row?.attempts ?? 0,
    succeeded: row?.succeeded ?? 0,
    p50Ms: row ? percentileOf(row.latencyBuckets, 0.5) : null,
    p99Ms: row ? percentileOf(row.latencyBuckets, 0.99) : null,
  }));
  const windowOf = (last: number) => {
    const chosen = slots.slice(-last).flatMap(({ row }) => (row ? [row] : []));
    const attempts = chosen.reduce((sum, row) => sum + row.attempts, 0);
    const succeeded = chosen.reduce((sum, row) => sum + row.succeeded, 0);
    const buckets = chosen.reduce((sum, row) => addBuckets(sum, row.latencyBuckets), [] as number[]);
    const latency = { p50Ms: percentileOf(buckets, 0.5), p99Ms: percentileOf(buckets, 0.99) };
    return { attempts, succeeded, successRate: attempts ? succeeded / attempts : null, ...latency };
  };
  const failed = rows.filter((row) => row.lastFailureAt).sort((a, b) => b.lastFailureAt!.getTime() - a.lastFailureAt!.getTime())[0];
  return {
    flowId,
    hours,
    last24Hours: windowOf(24),
    last7Days: windowOf(HEALTH_HOURS),
    lastFailure: failed
      ? { at: failed.lastFailureAt!.toISOString(), statusCode: failed.lastFailureStatus, error: failed.lastFailureError }
      : null,
    latencyErrorPercent: LATENCY_ERROR_PERCENT,
  };
}

/** Each of the shop's flows: its attempts per hour over the last 24 hours, for the flows list. */
export async function flowSparklines(tx: Tx): Promise<FlowSparkline[]> {
  const span = await rollUpClosedHours(tx);
  const first = new Date(span.firstHour.getTime() + (HEALTH_HOURS - 24) * HOUR_MS);
  const [flows, rows] = await Promise.all([tx<{ id: string }[]>`select id from flows order by created_at`, hoursOf(tx, span, first, null)]);
  const lines = new Map(flows.map(({ id }) => [id, { flowId: id, attempts: Array<number>(24).fill(0), succeeded: 0 }]));
  for (const row of rows) {
    const line = lines.get(row.flowId);
    if (!line) continue;
    line.attempts[Math.round((row.hour.getTime() - first.getTime()) / HOUR_MS)]! += row.attempts;
    line.succeeded += row.succeeded;
  }
  return [...lines.values()];
}
