import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Connection } from '@temporalio/client';
import { loadSettings } from '../../config/settings.js';
import { temporalClient } from '../../config/temporal-connection.js';
import { createSql, type Sql } from '../../db/client.js';
import { addMember, createShop } from '../../domain/access/index.js';
import { setAsideEvents, writeEvent } from '../../domain/events/index.js';
import { createFlow, type FlowCondition } from '../../domain/flows/index.js';
import { COSTLIEST } from './neighbours-noise.js';
import type { NoisyShopPlan, NoisyShopSent } from '../noisy-shop.js';
import { withShop } from '../../domain/kernel/index.js';
import { ensureDevCertificate } from '../../scripts/bootstrap/certificates.js';
import { freePort, freePorts, waitFor } from '../../scripts/bootstrap/ports.js';
import { outputMatches, ProcessGroup } from '../../scripts/processes.js';
import { ReceiverProcess } from '../receiver-process.js';
import { deliveryParts } from '../delivery-parts.js';
import { startBenchProcess } from '../built-platform.js';
import { deliveryWorkflowId } from '../../workflows/deliveries/delivery-starter.js';
import { removeHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import { atSteadyRate, eachAtMost, postFromAddress } from '../load.js';
import { shippingFixture } from '../shipping-fixture.js';
import { printNeighbours, PUSH_RATE, RATE, type NeighboursResults, type Phase } from './neighbours-report.js';
import { quantile } from '../quantile.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { shipmentTaskQueue } from '../../workflows/shipments/shipment-starter.js';
import { trackingWorkflowId } from '../../workflows/shipments/shipment-workflows.js';

/**
 * Noisy neighbours (issue 46): shop B's deliveries alone (5 events a second to a healthy receiver),
 * then again while shop A does everything at once: 47 flows with the costliest conditions the save
 * check allows on products of 2,048 variants (one such product updated every two seconds), 2,000
 * deliveries to a receiver answering 500 (retried on the production schedule), a poison event, a
 * recovery batch and a login flood from 100 addresses (each at the login's limit, 30 a minute), sent
 * by a process of A's own (bench/noisy-shop.ts). B also pushes a shipment a second to the carrier B
 * simulator, and its owner logs in every two seconds, in both phases. B's commit-to-receipt p50 and
 * p99 and its pushes' p50 and p99 (request to 201), their ratios to the quiet figures beside the goal
 * (p99 within 2x), and what was lost or sent twice.
 */
export interface NeighboursOptions {
  appUrl: string;
  adminUrl: string;
  temporalAddress: string;
  seconds: number;
}

const PASSWORD = 'bench horse battery staple';
/** The phase's first seconds, where every noise begins at once: B's p99 after them is printed too. */
const ONSET_MS = 2_000;
/** B's owner logging in from her usual browser, in both phases. */
const OWNER_LOGINS_PER_SECOND = 0.5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One of B's pushes answered 201: how long it took, when it was sent (ms into the phase, and the clock's), and its shipment. */
interface TimedPush {
  ms: number;
  atMs: number;
  sentAt: number;
  shipmentId: string;
}

export async function neighboursScenario(options: NeighboursOptions): Promise<NeighboursResults> {
  const certificate = await ensureDevCertificate();
  const carrier = await CarrierB.start({ rateLimitPerSecond: null });
  const sql = createSql(options.appUrl, { max: 10, applicationName: 'shopflow-bench-neighbours' });
  const owner = createSql(options.adminUrl, { max: 1, applicationName: 'shopflow-bench-maintenance' });
  const taskQueue = `bench-neighbours-${randomUUID()}`;
  const group = new ProcessGroup((name, code) => {
    throw new Error(`${name} exited during the neighbours benchmark (code ${code})`);
  });
  let shops: string[] = [];
  // Each shop's integrator its own server (ReceiverProcess), as in life: B's arrivals are timed on a
  // loop that answers none of A's failing attempts.
  const receivers: ReceiverProcess[] = [];
  try {
    const [quietReceiver, noisyReceiver] = [
      await ReceiverProcess.start(group, 'receiver-b', certificate),
      await ReceiverProcess.start(group, 'receiver-a', certificate),
    ];
    receivers.push(quietReceiver, noisyReceiver);
    const run = Date.now().toString(36);
    const [quietShop, noisyShop] = [
      await createShop(sql, { slug: `bench-quiet-${run}`, name: 'Quiet shop' }),
      await createShop(sql, { slug: `bench-noisy-${run}`, name: 'Noisy shop' }),
    ];
    shops = [quietShop.id, noisyShop.id];
    const port = await freePort(3300);
    const metricsPorts = await freePorts({ api: 9564, worker: 9565, relay: 9566 });
    const env = {
      APP_DATABASE_URL: options.appUrl,
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      WEBHOOK_EXTRA_CA_FILE: certificate.certFile,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      API_METRICS_PORT: String(metricsPorts.api),
      WORKER_METRICS_PORT: String(metricsPorts.worker),
      RELAY_METRICS_PORT: String(metricsPorts.relay),
    };
    const loopDelays = () => readLoopDelays(metricsPorts);
    const secretsKey = loadSettings({ ...process.env, ...env }).secretsKey;
    const flow = (shopId: string, inbox: string, eventType: string, condition?: FlowCondition) =>
      withShop(sql, shopId, (tx) =>
        createFlow(
          tx,
          shopId,
          {
            name: inbox,
            eventType,
            url: (shopId === quietShop.id ? quietReceiver : noisyReceiver).url(inbox),
            state: 'on',
            ...(condition ? { condition } : {}),
          },
          null,
          secretsKey,
        ),
      );
    const [quietInbox, costlyInbox, failingInbox] = ['quiet', 'costly', 'failing'].map((name) => `${name}-${run}`) as [
      string,
      string,
      string,
    ];
    await noisyReceiver.respondWith(failingInbox, [{ status: 500, body: 'down' }]);
    const { flowId: quietFlow } = await flow(quietShop.id, quietInbox, 'product.updated');
    // 47: with the failing and poison flows below, as many as a shop may hold (SHOP_CAPS: 50) less one.
    for (let index = 0; index < 47; index++) await flow(noisyShop.id, costlyInbox, 'product.updated', COSTLIEST);
    const { flowId: failingFlow } = await flow(noisyShop.id, failingInbox, 'order.created');
    // A condition no save check would take (an operator it does not know): its events' matching throws.
    const { flowId: poisonFlow } = await flow(noisyShop.id, `poison-${run}`, 'customer.created');
    await owner`update flows set condition = ${owner.json({ match: 'all', rules: [{ path: 'data.name', operator: 'like', value: 'x' }] })} where id = ${poisonFlow}`;
    await addMember(sql, noisyShop.id, { email: 'owner@noisy.test', name: 'Owner', password: PASSWORD });
    await addMember(sql, quietShop.id, { email: 'owner@quiet.test', name: 'Owner', password: PASSWORD });
    const apiUrl = `http://127.0.0.1:${port}`;
    const shipping = await shippingFixture(
      sql,
      quietShop.id,
      { carrierUrl: carrier.url, apiUrl, secretsKey },
      Math.ceil(PUSH_RATE * options.seconds) * 2 + 2,
    );

    const processes = (['worker', 'relay'] as const).map(
      (name) => [name, startBenchProcess(group, name, `workers/${name}.ts`, env)] as const,
    );
    startBenchProcess(group, 'api', 'api/server.ts', env);
    const noisyShopProcess = group.startTs('noisy-shop', 'bench/noisy-shop.ts', {
      NOISY_SHOP_PLAN: JSON.stringify({
        appUrl: options.appUrl,
        apiPort: port,
        shopId: noisyShop.id,
        slug: noisyShop.slug,
        email: 'owner@noisy.test',
        password: PASSWORD,
        failingFlowId: failingFlow,
        noise: (process.env.BENCH_NEIGHBOURS_NOISE ?? 'login,big,burst').split(','),
      } satisfies NoisyShopPlan),
    });
    const noisyShopDone = new Promise<NoisyShopSent>((resolve) =>
      createInterface({ input: noisyShopProcess.stdout! }).on('line', (line) => {
        const done = /noisy shop done (.*)$/.exec(line);
        if (done) resolve(JSON.parse(done[1]!) as NoisyShopSent);
      }),
    );
    await Promise.all([
      ...processes.map(([name, child]) =>
        outputMatches(child, name === 'worker' ? /worker polling task queue/ : /outbox relay started/, 90_000, name),
      ),
      waitFor('the API', async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.ok === true, 90_000),
      outputMatches(noisyShopProcess, /noisy shop ready/, 90_000, 'noisy-shop'),
    ]);
    const connection = await Connection.connect({ address: options.temporalAddress });
    const client = temporalClient(connection, loadSettings().payloadCodecKeys);
    await removeHousekeepingSchedule(client, taskQueue);

    const emit = (shopId: string, type: string, data: Record<string, unknown>) =>
      withShop(sql, shopId, (tx) => writeEvent(tx, { shopId, type: type as 'product.updated', resourceId: randomUUID(), data }));
    let pushed = 0;
    const push = async (): Promise<{ ms: number; status: number; sentAt: number; shipmentId?: string }> => {
      const orderId = shipping.orderIds[pushed++]!;
      const sentAt = Date.now();
      const begun = performance.now();
      const answer = await fetch(`${apiUrl}/api/open/v1/shipments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${shipping.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orderId, connectionId: shipping.connectionId }),
      });
      const { id } = (await answer.json()) as { id?: string };
      return { ms: performance.now() - begun, status: answer.status, sentAt, shipmentId: id };
    };
    // Where a push's time went: to its workflow's start (the API, the engine), on to the carrier's
    // receipt of the order (its first task), then the rest (the carrier's answer, the records, the 201).
    const pushParts = async (timed: TimedPush): Promise<Phase['slowestPushes'][number]> => {
      const { startTime } = await client.workflow.getHandle(trackingWorkflowId(timed.shipmentId)).describe();
      const atCarrier =
        carrier.store.orders
          .all()
          .find((order) => order.partnerId === timed.shipmentId)
          ?.createdAt.getTime() ?? NaN;
      const toStartMs = startTime.getTime() - timed.sentAt;
      const toCarrierMs = atCarrier - startTime.getTime();
      return { ms: timed.ms, atMs: timed.atMs, toStartMs, toCarrierMs, restMs: timed.ms - toStartMs - toCarrierMs };
    };
    // B's owner logs in every two seconds in both phases (from A's flood on, the door it must still get
    // through): B beside A does what B alone did, and no more.
    const measuredPhase = async (ownerLoggedIn: (status: string) => void): Promise<Phase> => {
      const commits = new Map<string, number>();
      const timedPushes: TimedPush[] = [];
      const pushesFailed: Record<string, number> = {};
      await loopDelays(); // prom-client resets its loop histogram on each read: the phase starts clean
      const begun = Date.now();
      await Promise.all([
        atSteadyRate(RATE, options.seconds, async () => {
          const id = await emit(quietShop.id, 'product.updated', { id: randomUUID(), name: 'Áo' });
          commits.set(id, Date.now());
        }),
        atSteadyRate(PUSH_RATE, options.seconds, async () => {
          const { ms, status, sentAt, shipmentId } = await push();
          if (status === 201 && shipmentId) timedPushes.push({ ms, atMs: sentAt - begun, sentAt, shipmentId });
          else pushesFailed[status] = (pushesFailed[status] ?? 0) + 1;
        }),
        atSteadyRate(OWNER_LOGINS_PER_SECOND, options.seconds, async () => ownerLoggedIn(await ownerLogIn())),
      ]);
      timedPushes.sort((a, b) => a.ms - b.ms);
      const pushes = timedPushes.map((timed) => timed.ms);
      const deadline = Date.now() + 120_000;
      const firsts = new Map<string, number>();
      let duplicates = 0;
      while (Date.now() < deadline) {
        firsts.clear();
        duplicates = 0;
        for (const received of await quietReceiver.received(quietInbox)) {
          const id = (JSON.parse(received.body) as { id: string }).id;
          if (!commits.has(id)) continue;
          if (firsts.has(id)) duplicates += 1;
          else firsts.set(id, received.receivedAt.getTime());
        }
        if (firsts.size === commits.size) break;
        await sleep(250);
      }
      // Read once B's deliveries are in: a scrape of the three processes is no part of any delivery's time.
      const delays = await loopDelays();
      // Each delivery: when it was committed and received, and the time between; fastest first.
      const timed = [...firsts]
        .map(([id, at]) => ({ id, at, committedAt: commits.get(id)!, ms: at - commits.get(id)! }))
        .sort((a, b) => a.ms - b.ms);
      const latencies = timed.map((delivery) => delivery.ms);
      // Twenty of them asked of the engine when their workflow started.
      const sampled = [...firsts].filter((_, index) => index % Math.ceil(firsts.size / 20) === 0);
      const starts = await Promise.all(
        sampled.map(async ([id]) => (await client.workflow.getHandle(deliveryWorkflowId(quietFlow, id)).describe()).startTime.getTime()),
      );
      const toStart = sampled.map(([id], index) => starts[index]! - commits.get(id)!).sort((a, b) => a - b);
      const startToReceipt = sampled.map(([, at], index) => at - starts[index]!).sort((a, b) => a - b);
      // The slowest percent asked too: where the tail waits.
      const slowest = timed.slice(-Math.max(3, Math.ceil(timed.length / 100))).reverse();
      const slowParts = await Promise.all(
        slowest.map(async ({ id, at, committedAt, ms }) => ({
          atMs: committedAt - begun,
          totalMs: ms,
          ...(await deliveryParts(client, owner, { flowId: quietFlow, eventId: id, committedAt, receivedAt: at })),
        })),
      );
      return {
        p50Ms: quantile(latencies, 0.5),
        p99Ms: quantile(latencies, 0.99),
        p99AfterOnsetMs: quantile(
          timed.filter((delivery) => delivery.committedAt - begun >= ONSET_MS).map((delivery) => delivery.ms),
          0.99,
        ),
        toStartP50Ms: quantile(toStart, 0.5),
        startToReceiptP50Ms: quantile(startToReceipt, 0.5),
        slowParts,
        committed: commits.size,
        lost: commits.size - firsts.size,
        duplicates,
        loopDelays: delays,
        pushP50Ms: quantile(pushes, 0.5),
        pushP99Ms: quantile(pushes, 0.99),
        pushesAnswered: pushes.length,
        pushesFailed,
        slowestPushes: await Promise.all(timedPushes.slice(-3).reverse().map(pushParts)),
      };
    };

    const ownerCredentials = JSON.stringify({ shop: quietShop.slug, email: 'owner@quiet.test', password: PASSWORD });
    // B's owner logged in from her browser before: it carries the mark of that login.
    const firstLogIn = await fetch(`http://127.0.0.1:${port}/api/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: ownerCredentials,
    });
    const deviceMark = /shopflow_device=[^;]+/.exec(firstLogIn.headers.get('set-cookie') ?? '')?.[0];
    // She logs in from an address of her own, as in life (A's admin and the bench use 127.0.0.1, whose
    // 30 logins a minute her own would otherwise spend); her status, with the detail of a refusal.
    const ownerLogIn = async () => {
      const { status, text } = await postFromAddress(
        '127.0.2.1',
        port,
        '/api/admin/session',
        ownerCredentials,
        deviceMark ? { cookie: deviceMark } : {},
      );
      return status === '200' ? status : `${status} ${(JSON.parse(text || '{}') as { detail?: string }).detail ?? ''}`;
    };

    // Warm-up (the first push compiles the workflow code on the API's worker), then B alone.
    await push();
    await atSteadyRate(RATE, 3, async () => void (await emit(quietShop.id, 'product.updated', { id: randomUUID() })));
    await sleep(3_000);
    const quiet = await measuredPhase(() => undefined);

    // B again, with A doing everything at once (or what BENCH_NEIGHBOURS_NOISE names: login, big, burst).
    noisyShopProcess.kill('SIGUSR1');
    const memberLogins: Record<string, number> = {};
    const noisyPhase = await measuredPhase((status) => void (memberLogins[status] = (memberLogins[status] ?? 0) + 1));
    await group.kill('noisy-shop', 'SIGTERM');
    const { loginAnswers, bigProducts, burstWrittenMs, recoveryAnswer } = await noisyShopDone;
    const setAside = (await setAsideEvents(sql)).filter((event) => event.shopId === noisyShop.id).length;
    // Each big product matched against the 47 costly flows: one skipped run each in the shop log.
    const [{ skipped } = { skipped: 0 }] = await withShop(
      sql,
      noisyShop.id,
      (tx) => tx<{ skipped: number }[]>`select count(*)::int as skipped from shop_log where action = 'flow.run_skipped'`,
    );

    const results: NeighboursResults = {
      quiet,
      noisy: noisyPhase,
      p50Ratio: noisyPhase.p50Ms / quiet.p50Ms,
      p99Ratio: noisyPhase.p99Ms / quiet.p99Ms,
      pushP99Ratio: noisyPhase.pushP99Ms / quiet.pushP99Ms,
      memberLogins,
      shopA: {
        costlyMatched: skipped,
        failingAttempts: (await noisyReceiver.received(failingInbox)).length,
        setAside,
        bigProducts,
        burstWrittenMs,
        loginAnswers,
        recoveryAnswer,
      },
    };
    printNeighbours(results);
    await connection.close();
    return results;
  } finally {
    await group.stopAll();
    await endWhatWasStarted(owner, options.temporalAddress, taskQueue, shops);
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await carrier.close();
    await Promise.all([sql.end(), owner.end()]);
  }
}

/**
 * The run's shops fall silent: their flows off, their queued events gone, and every workflow still
 * running on the run's task queue (shop A's deliveries retrying on a queue no worker will serve)
 * terminated, so nothing piles up on the server from one run to the next.
 */
async function endWhatWasStarted(owner: Sql, temporalAddress: string, taskQueue: string, shops: string[]): Promise<void> {
  if (shops.length === 0) return;
  await owner`update flows set state = 'off' where shop_id = any(${shops}::uuid[])`;
  await owner`delete from event_queue where shop_id = any(${shops}::uuid[])`;
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = temporalClient(connection, loadSettings().payloadCodecKeys);
    const running: string[] = [];
    const queues = `TaskQueue = '${taskQueue}' OR TaskQueue = '${shipmentTaskQueue(taskQueue)}'`;
    for await (const run of client.workflow.list({ query: `(${queues}) AND ExecutionStatus = 'Running'` })) running.push(run.workflowId);
    await eachAtMost(running, 20, (workflowId) =>
      client.workflow
        .getHandle(workflowId)
        .terminate('the neighbours benchmark has ended')
        .then(
          () => undefined,
          () => undefined,
        ),
    );
  } finally {
    await connection.close();
  }
}

/** Each process's event-loop delay since the last read (prom-client's default metrics), in ms. */
async function readLoopDelays(ports: Record<'api' | 'worker' | 'relay', number>): Promise<Phase['loopDelays']> {
  const read = async (port: number) => {
    // Its own two lines of parsing: the exposition parser of test/support would make bench and test import each other.
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const ms = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) * 1000;
    return { p99Ms: ms('nodejs_eventloop_lag_p99_seconds'), maxMs: ms('nodejs_eventloop_lag_max_seconds') };
  };
  const entries = await Promise.all(Object.entries(ports).map(async ([name, port]) => [name, await read(port)] as const));
  return Object.fromEntries(entries);
}
