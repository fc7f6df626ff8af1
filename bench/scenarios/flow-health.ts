import { performance } from 'node:perf_hooks';
import type { Sql } from '../../db/client.js';
import { loadSettings } from '../../config/settings.js';
import { createFlow, flowHealth, flowSparklines } from '../../domain/flows/index.js';
import { withShop, type Tx } from '../../domain/kernel/index.js';
import { newShop } from '../../scripts/fixtures/index.js';
import { step } from '../../scripts/bootstrap/progress.js';
import { settle } from '../settle.js';
import { median } from '../quantile.js';

export interface FlowHealthBench {
  attempts: number;
  flows: number;
  /** Attempts of the busy flow in the last hour (what the live part of a read goes through). */
  busyFlowAttemptsLastHour: number;
  /** Milliseconds, median of the rounds unless said. */
  baseline: number;
  /** The first read: every closed hour of 7 days summed (once a shop, after a week unread at worst). */
  firstReadOnce: number;
  /** A read after an hour (and up to an hour more) unread: that time summed, the rest read. */
  readWithOneHourToSum: number;
  health: number;
  sparklines: number;
  healthRatio: number;
  sparklinesRatio: number;
}

const ATTEMPTS = Number(process.env.BENCH_HEALTH_ATTEMPTS ?? 10_000_000);
const FLOWS = 50;
const ROUNDS = 20;
/** Deliveries are written in batches of this many (two attempts each). */
const BATCH = 500_000;

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

/**
 * A shop of 50 flows and `ATTEMPTS` attempts over the last 7 days (two a delivery, one in twenty
 * failed, answer times from a few ms to 3 s; half of them the busy flow's), written as the owner with
 * set-based SQL, foreign-key triggers off: the fill's speed is not what is measured.
 */
async function fill(sql: Sql, owner: Sql): Promise<{ shopId: string; flows: string[] }> {
  const { shopId } = await newShop(sql, { name: 'Bench flow health' });
  const secretsKey = loadSettings().secretsKey;
  const flows = await withShop(sql, shopId, async (tx) => {
    const ids: string[] = [];
    for (let index = 0; index < FLOWS; index += 1) {
      const input = {
        name: `Flow ${index}`,
        eventType: 'order.created' as const,
        url: `https://receiver.example/${index}`,
        state: 'on' as const,
      };
      ids.push((await createFlow(tx, shopId, input, null, secretsKey)).flowId);
    }
    return ids;
  });
  const deliveries = Math.ceil(ATTEMPTS / 2);
  // Ids of this run's own: a run stopped half-way leaves rows that must not collide with the next run's.
  const id = `msg_health_${Date.now().toString(36)}_`;
  await step(`writing ${deliveries.toLocaleString('en')} deliveries and ${ATTEMPTS.toLocaleString('en')} attempts over 7 days`, () =>
    owner.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      for (let from = 1; from <= deliveries; from += BATCH) {
        const to = Math.min(deliveries, from + BATCH - 1);
        // Delivery i at now - 7 days × (1 - i/n): evenly over the week, the newest now; even ones the busy flow's.
        await tx`
          insert into deliveries (delivery_id, shop_id, flow_id, event_id, event_type, workflow_id, status, created_at, updated_at)
          select ${id} || i, ${shopId}, (${flows}::uuid[])[case when i % 2 = 0 then 1 else 2 + i % ${FLOWS - 1} end],
                 'evt_bench_' || i, 'order.created', 'delivery:bench:' || i, 'delivered', at, at
          from generate_series(${from}::int, ${to}::int) as i,
               lateral (select now() - interval '167 hours 50 minutes' * (1 - i::float8 / ${deliveries})) as t (at)`;
        await tx`
          insert into delivery_attempts (shop_id, delivery_id, attempted_at, status_code, duration_ms, response_excerpt, verdict)
          select ${shopId}, ${id} || i, at - (2 - k) * interval '10 seconds', case when ok then 200 else 503 end,
                 (3 + random() * random() * 3000)::int, '', case when ok then 'delivered' else 'retry' end
          from generate_series(${from}::int, ${to}::int) as i, generate_series(1, 2) as k,
               lateral (select now() - interval '167 hours 50 minutes' * (1 - i::float8 / ${deliveries}), (i * 2 + k) % 20 <> 0) as t (at, ok)`;
      }
    }),
  );
  await settle(owner, ['deliveries', 'delivery_attempts']);
  return { shopId, flows };
}

/**
 * Health at a glance at 10 million attempts (issue 32): a busy flow's health (7 days, hour by hour)
 * and the flows list's sparklines (every flow's 24 hours), read as the admin API reads them, beside a
 * plain indexed count of the busy flow's deliveries in the last hour, in the same run. The first read
 * sums the week once; a later one only what happened since the one before (five-minute steps).
 */
export async function flowHealthScenario(sql: Sql, owner: Sql): Promise<FlowHealthBench> {
  const { shopId, flows } = await fill(sql, owner);
  const busy = flows[0]!;
  const inTheShop = <T>(work: (tx: Tx) => Promise<T>) => withShop(sql, shopId, work);
  try {
    const baselineOnce = () =>
      inTheShop((tx) => tx`select count(*)::int as n from deliveries where flow_id = ${busy} and created_at > now() - interval '1 hour'`);
    const busyLastHour = await inTheShop(
      async (tx) =>
        (
          await tx<{ n: number }[]>`
            select count(*)::int as n from delivery_attempts a join deliveries d using (delivery_id)
            where d.flow_id = ${busy} and a.attempted_at > now() - interval '1 hour'`
        )[0]!.n,
    );
    const first = await timed(() => inTheShop((tx) => flowHealth(tx, busy)));
    if (first.value.last7Days.attempts < ATTEMPTS * 0.45) throw new Error(`the busy flow shows ${first.value.last7Days.attempts} attempts`);
    // As if nobody had read for an hour: the sums end an hour earlier, at the start of an hour.
    await owner.begin(async (tx) => {
      await tx`update flow_health_rollups set rolled_up_to = date_trunc('hour', rolled_up_to - interval '1 hour', 'UTC') where shop_id = ${shopId}`;
      await tx`delete from flow_health_hours where shop_id = ${shopId} and hour >= (select rolled_up_to from flow_health_rollups where shop_id = ${shopId})`;
    });
    const oneHour = await timed(() => inTheShop((tx) => flowHealth(tx, busy)));
    // The same week, summed in two goes (the week's first hour may have passed meanwhile).
    const [once, twice] = [first.value.last7Days.attempts, oneHour.value.last7Days.attempts];
    if (Math.abs(once - twice) > once * 0.01) throw new Error(`the week summed in two goes: ${twice} attempts, not ${once}`);
    const timings = { baseline: [] as number[], health: [] as number[], sparklines: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      timings.baseline.push((await timed(baselineOnce)).ms);
      timings.health.push((await timed(() => inTheShop((tx) => flowHealth(tx, busy)))).ms);
      timings.sparklines.push((await timed(() => inTheShop(flowSparklines))).ms);
    }
    const result: FlowHealthBench = {
      attempts: ATTEMPTS,
      flows: FLOWS,
      busyFlowAttemptsLastHour: busyLastHour,
      baseline: median(timings.baseline),
      firstReadOnce: first.ms,
      readWithOneHourToSum: oneHour.ms,
      health: median(timings.health),
      sparklines: median(timings.sparklines),
      healthRatio: median(timings.health) / median(timings.baseline),
      sparklinesRatio: median(timings.sparklines) / median(timings.baseline),
    };
    console.log(`baseline, count of the busy flow's deliveries in the last hour: ${result.baseline.toFixed(2)} ms`);
    console.log(`a busy flow's health (7 days, hour by hour; ${busyLastHour} attempts in the last hour): ${result.health.toFixed(2)} ms`);
    console.log(`the flows list's sparklines (50 flows, 24 hours):              ${result.sparklines.toFixed(2)} ms`);
    console.log(`ratio to the baseline: health ${result.healthRatio.toFixed(2)}, sparklines ${result.sparklinesRatio.toFixed(2)}`);
    console.log(`first read (7 days of ${ATTEMPTS.toLocaleString('en')} attempts summed, once): ${result.firstReadOnce.toFixed(0)} ms`);
    console.log(`a read after an hour unread (that hour summed):                ${result.readWithOneHourToSum.toFixed(2)} ms`);
    return result;
  } finally {
    await step('removing the health shop’s attempts and deliveries', () =>
      owner.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        await tx`delete from delivery_attempts where shop_id = ${shopId}`;
        await tx`delete from deliveries where shop_id = ${shopId}`;
        await tx`delete from flow_health_hours where shop_id = ${shopId}`;
      }),
    );
  }
}
