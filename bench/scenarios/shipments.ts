import { randomUUID } from 'node:crypto';
import { Connection, ScheduleNotFoundError, WorkflowNotFoundError } from '@temporalio/client';
import { temporalClient } from '../../config/temporal-connection.js';
import { removeHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import { trackingWorkflowId } from '../../workflows/shipments/shipment-workflows.js';
import type { Sql } from '../../db/client.js';
import { carrierB } from '../../adapters/carriers/carrier-b.js';
import { loadSettings } from '../../config/settings.js';
import { withShop } from '../../domain/kernel/index.js';
import { HANOI_RECIPIENT, newShop } from '../../scripts/fixtures/index.js';
import { shippingFixture, SIMULATOR_ENDPOINTS } from '../shipping-fixture.js';
import { DEMO_PICK_UP } from '../../scripts/seed/demo-carriers.js';
import { outputMatches, ProcessGroup } from '../../scripts/processes.js';
import { startBenchProcess } from '../built-platform.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import type { BenchContext } from '../context.js';
import { cpuBetween, cpuPer, cpuSnapshot, formatCpu } from '../cpu-usage.js';
import { temporalCeilingScenario } from './temporal-ceiling.js';
import { eachAtMost } from '../load.js';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';
import { quantile } from '../quantile.js';

/**
 * 10 shops × (40 pushes in flight + 6 alone, half of them through an API without its shipments'
 * worker, + 2 to warm up both ways): under the shipment counter's 60 a minute per shop.
 */
const SHOPS = 10;
const IN_FLIGHT_PER_SHOP = 40;
const ALONE_PER_SHOP = 6;
const ORDERS_PER_SHOP = IN_FLIGHT_PER_SHOP + ALONE_PER_SHOP + 2;
/** Requests in flight at once (BENCH_SHIPMENTS_CONCURRENCY). */
const CONCURRENCY = Number(process.env.BENCH_SHIPMENTS_CONCURRENCY ?? 20);
/** The create the direct baseline sends: a push's request for one shirt to Hà Nội. */
const DIRECT_CREATE = {
  recipient: {
    name: HANOI_RECIPIENT.recipientName,
    phone: HANOI_RECIPIENT.recipientPhone,
    street: HANOI_RECIPIENT.addressLine,
    ward: HANOI_RECIPIENT.wardName,
    district: HANOI_RECIPIENT.districtName,
    province: HANOI_RECIPIENT.provinceName,
  },
  pickUp: DEMO_PICK_UP,
  weightGram: 1_000,
  codAmount: '150000',
  declaredValue: '150000',
  note: null,
  items: [{ name: 'Áo thun', quantity: 1, price: '150000' }],
};

interface Timed {
  count: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
}

/** Calls' latencies (ms) taken one at a time: their count, pace and percentiles. */
function summary(latencies: number[]): Timed {
  const sorted = [...latencies].sort((a, b) => a - b);
  const seconds = sorted.reduce((sum, ms) => sum + ms, 0) / 1000;
  return {
    count: sorted.length,
    seconds: Number(seconds.toFixed(2)),
    perSecond: Number((sorted.length / seconds).toFixed(1)),
    ...percentiles(sorted),
  };
}

function percentiles(sorted: number[]): Pick<Timed, 'p50Ms' | 'p95Ms'> {
  const at = (q: number) => Number(quantile(sorted, q).toFixed(1));
  return { p50Ms: at(0.5), p95Ms: at(0.95) };
}

/** `count` calls, `concurrency` at a time: throughput and latency percentiles. */
async function timed(count: number, concurrency: number, call: (index: number) => Promise<void>): Promise<Timed> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        const begun = performance.now();
        await call(index);
        latencies.push(performance.now() - begun);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { count, seconds: Number(seconds.toFixed(2)), perSecond: Number((count / seconds).toFixed(1)), ...percentiles(latencies) };
}

/** A new shop connected to the simulator, with a key and `ORDERS_PER_SHOP` orders ready to ship. */
async function shippingShop(sql: Sql, carrierUrl: string, apiUrl: string) {
  const shop = await newShop(sql, { slug: `bench-ship-${randomUUID().slice(0, 8)}`, name: 'Shipments benchmark' });
  const fixture = await shippingFixture(sql, shop.shopId, { carrierUrl, apiUrl, secretsKey: loadSettings().secretsKey }, ORDERS_PER_SHOP);
  return { shopId: shop.shopId, ...fixture };
}

/**
 * Shipments: `POST /shipments` (key, shop transaction, the push workflow on Temporal, the carrier's
 * create over HTTP, the acceptance recorded with the order's move and stock), one at a time and
 * CONCURRENCY in flight, against the same create sent straight to the carrier B simulator by its
 * adapter and against the engine's empty-workflow ceiling, all in this run, with the CPU each process
 * spends per push; then carrier callbacks per second, from the simulator's POST to the shipment's new
 * state in the database (callback endpoint, signal, tracking workflow, the milestone's transaction).
 */
export async function shipmentsScenario(context: BenchContext, sql: Sql, services: { temporalAddress: string; appUrl: string }) {
  // The engine's ceiling in the same run, on the same server, before anything else loads it, and
  // again after the pushes: the machine's pace drifts between phases, the ratio reads the two's mean.
  const ceilingOptions = { temporalAddress: services.temporalAddress, seconds: context.durationSeconds, concurrency: context.connections };
  const ceiling = await temporalCeilingScenario(ceilingOptions);
  const carrier = await CarrierB.start({ rateLimitPerSecond: null });
  const taskQueue = `bench-shipments-${randomUUID()}`;
  const pushed: { id: string; shopId: string; trackingCode: string }[] = [];
  const workers = new ProcessGroup((name, code) => {
    throw new Error(`${name} exited during the benchmark (code ${code})`);
  });
  try {
    // The carrier is the local simulator: the API and the worker may reach loopback, as development allows.
    const env = { TEMPORAL_ADDRESS: services.temporalAddress, TEMPORAL_TASK_QUEUE: taskQueue, OUTBOUND_ALLOW_LOOPBACK: 'true' };
    const apiUrl = await context.startServer('api', 'api/server.ts', env);
    // The same API without its shipments' worker (docs/behaviour/shipments.md): pushes alone alternate between the two.
    const serverWayUrl = await context.startServer('api-off', 'api/server.ts', { ...env, SHIPMENT_WORKER: 'off' });
    const worker = startBenchProcess(workers, 'worker', 'workers/worker.ts', {
      ...env,
      APP_DATABASE_URL: services.appUrl,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
    });
    await outputMatches(worker, /worker polling task queue/, 60_000, 'worker');
    const shops: Awaited<ReturnType<typeof shippingShop>>[] = [];
    for (let index = 0; index < SHOPS; index += 1) shops.push(await shippingShop(sql, carrier.url, apiUrl));
    const total = SHOPS * IN_FLIGHT_PER_SHOP;
    const alone = SHOPS * ALONE_PER_SHOP;

    const account = carrier.registerShop();
    const adapter = carrierB(
      { baseUrl: carrier.url, credentials: { token: account.token, clientSource: account.clientSource } },
      { dispatcher: createOutboundAgent({ allowLoopback: true }), endpoints: SIMULATOR_ENDPOINTS },
    );
    const createDirectly = async () => {
      await adapter.create({ ...DIRECT_CREATE, shipmentId: randomUUID() });
    };
    const directAlone = await timed(alone, 1, createDirectly);
    const direct = await timed(total, CONCURRENCY, createDirectly);

    const push = async (shop: (typeof shops)[number], orderId: string, through = apiUrl) => {
      const response = await fetch(`${through}/api/open/v1/shipments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${shop.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orderId, connectionId: shop.connectionId }),
      });
      if (response.status !== 201) throw new Error(`POST /shipments: HTTP ${response.status} ${await response.text()}`);
      const shipment = (await response.json()) as { id: string; trackingCode: string };
      pushed.push({ id: shipment.id, shopId: shop.shopId, trackingCode: shipment.trackingCode });
    };
    const orderOf = (index: number, offset: number) => shops[index % SHOPS]!.orderIds[offset + Math.floor(index / SHOPS)]!;
    // Unmeasured first, both ways: the workers' first tasks compile the workflow code, and the processes' code warms up.
    await timed(2 * SHOPS, 5, (index) =>
      push(shops[index % SHOPS]!, orderOf(index, IN_FLIGHT_PER_SHOP + ALONE_PER_SHOP), index < SHOPS ? apiUrl : serverWayUrl),
    );
    const cpuBefore = cpuSnapshot();
    const throughApi = await timed(total, CONCURRENCY, (index) => push(shops[index % SHOPS]!, orderOf(index, 0)));
    const cpuMsPerPush = cpuPer(cpuBetween(cpuBefore, cpuSnapshot()), total);
    // One at a time, alternating: eager on the API's worker, then through the server (update-with-start).
    const aloneLatencies = { eager: [] as number[], server: [] as number[] };
    await timed(alone, 1, async (index) => {
      const way = index % 2 === 0 ? 'eager' : 'server';
      const begun = performance.now();
      await push(shops[index % SHOPS]!, orderOf(index, IN_FLIGHT_PER_SHOP), way === 'eager' ? apiUrl : serverWayUrl);
      aloneLatencies[way].push(performance.now() - begun);
    });
    const pushAlone = summary(aloneLatencies.eager);
    const pushAloneThroughServer = summary(aloneLatencies.server);
    const ceilingAfter = await temporalCeilingScenario(ceilingOptions);

    // Every shipment one step on at the carrier (picked up: delivering), each a callback to Shopflow.
    const deliveringIn = (shopId: string) =>
      withShop(
        sql,
        shopId,
        async (tx) => (await tx<{ count: number }[]>`select count(*)::int as count from shipments where status = 'delivering'`)[0]!.count,
      );
    const delivering = async () =>
      (await Promise.all(shops.map((shop) => deliveringIn(shop.shopId)))).reduce((sum, count) => sum + count, 0);
    const callbacksStart = performance.now();
    for (const { trackingCode } of pushed) carrier.advance(trackingCode, 3);
    let recorded = 0;
    while (recorded < pushed.length) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      recorded = await delivering();
    }
    const callbackSeconds = (performance.now() - callbacksStart) / 1000;
    const callbacks = {
      count: pushed.length,
      seconds: Number(callbackSeconds.toFixed(2)),
      perSecond: Number((pushed.length / callbackSeconds).toFixed(1)),
    };

    const meanCeiling = (ceiling.workflowsPerSecond + ceilingAfter.workflowsPerSecond) / 2;
    const goals = {
      ofCeiling: Number((throughApi.perSecond / meanCeiling).toFixed(2)),
      latencyOfDirect: Number((throughApi.p50Ms / direct.p50Ms).toFixed(1)),
      aloneOverDirectMs: Number((pushAlone.p50Ms - directAlone.p50Ms).toFixed(1)),
    };
    const line = (label: string, figures: Timed) =>
      console.log(`${label.padEnd(44)} ${figures.perSecond}/s, p50 ${figures.p50Ms} ms, p95 ${figures.p95Ms} ms (${figures.count})`);
    line('create straight to the carrier B, alone', directAlone);
    line(`create straight to the carrier B, ${CONCURRENCY} in flight`, direct);
    line('POST /shipments, alone', pushAlone);
    line('POST /shipments, alone, SHIPMENT_WORKER=off', pushAloneThroughServer);
    line(`POST /shipments, ${CONCURRENCY} in flight`, throughApi);
    console.log(`${''.padEnd(44)} CPU per push: ${formatCpu(cpuMsPerPush)}`);
    console.log(
      `pushes ÷ empty-workflow ceiling: ${goals.ofCeiling} (of ${Math.round(ceiling.workflowsPerSecond)}/s before and ${Math.round(ceilingAfter.workflowsPerSecond)}/s after the pushes; goal ≥ 0.5)`,
    );
    // Little's law: at the whole ceiling, CONCURRENCY in flight wait CONCURRENCY ÷ ceiling each; no workflow does better.
    const engineFloorMs = (CONCURRENCY * 1000) / meanCeiling;
    console.log(
      `p50 in flight ÷ direct create's p50: ${goals.latencyOfDirect}× (goal ≤ 3×); against ${CONCURRENCY} ÷ the ceiling, ${engineFloorMs.toFixed(0)} ms, the least any workflow waits: ${(throughApi.p50Ms / engineFloorMs).toFixed(1)}×`,
    );
    console.log(
      `one push alone − one create alone, p50: ${goals.aloneOverDirectMs} ms (goal ≤ 30 ms); through the server, alternating with it: ${(pushAloneThroughServer.p50Ms - directAlone.p50Ms).toFixed(1)} ms`,
    );
    console.log(`carrier callbacks → shipment state recorded: ${callbacks.perSecond}/s (${callbacks.count} in ${callbacks.seconds} s)`);
    return {
      ceiling,
      ceilingAfter,
      push: { directAlone, direct, pushAlone, pushAloneThroughServer, throughApi, cpuMsPerPush, goals },
      callbacks,
    };
  } finally {
    await workers.stopAll();
    await context.stopServers();
    await carrier.close();
    await endWhatTheBenchStarted(
      services.temporalAddress,
      taskQueue,
      pushed.map((shipment) => shipment.id),
    );
  }
}

/**
 * The server keeps nothing of the scenario's: the worker's housekeeping schedule on the bench's queue
 * (a run every 5 minutes) and each shipment's workflow, whose tracking would otherwise go on polling
 * on a queue no worker serves, its timers firing into later runs on the same server.
 */
async function endWhatTheBenchStarted(temporalAddress: string, taskQueue: string, shipmentIds: readonly string[]): Promise<void> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = temporalClient(connection, loadSettings().payloadCodecKeys);
    await removeHousekeepingSchedule(client, taskQueue).catch((error: unknown) => {
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    });
    await eachAtMost(shipmentIds, 10, (id) =>
      client.workflow
        .getHandle(trackingWorkflowId(id))
        .terminate('the benchmark is over')
        .then(
          () => undefined,
          (error: unknown) => {
            // Tracking that ended already (a shipment that ended) has nothing to stop.
            if (!(error instanceof WorkflowNotFoundError)) throw error;
          },
        ),
    );
  } finally {
    await connection.close();
  }
}
