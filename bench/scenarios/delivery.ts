import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { Webhook } from 'standardwebhooks';
import { createSecureContext, rootCertificates } from 'node:tls';
import { Agent, request } from 'undici';
import { Connection } from '@temporalio/client';
import { loadSettings } from '../../config/settings.js';
import { createSql } from '../../db/client.js';
import { createFlow } from '../../domain/flows/index.js';
import { writeEvent } from '../../domain/events/index.js';
import { createShop } from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { ensureDevCertificate, readCertificate } from '../../scripts/bootstrap/certificates.js';
import { outputMatches, ProcessGroup } from '../../scripts/processes.js';
import { startBenchProcess } from '../built-platform.js';
import { WebhookReceiver } from '../../simulators/webhook-receiver.js';
import { cpuBetween, cpuPer, cpuSnapshot, formatCpu, type CpuGroups } from '../cpu-usage.js';
import { atSteadyRate } from '../load.js';
import { deliverySpread, type DeliverySpread } from '../delivery-spread.js';
import { deliveryWorkflowId } from '../../workflows/deliveries/delivery-starter.js';
import { removeHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import { temporalClient } from '../../config/temporal-connection.js';
import { quantile } from '../quantile.js';

export interface DeliveryScenarioOptions {
  appUrl: string;
  temporalAddress: string;
  /** Steady commit rates in events per second, one phase each (BENCH_DELIVERY_RATE, e.g. "100,250"). */
  rates: number[];
  /** Length of each phase (BENCH_DELIVERY_SECONDS). */
  secondsPerRate: number;
  /** Parallel requests of the closed-loop baseline. */
  baselineConcurrency: number;
  /** Two workers and two relays on the one server instead of one each, and how the deliveries spread over them. */
  pair?: boolean;
  /** Cumulative counters (the databases' transactions and row writes) read around each phase, per delivery in the results. */
  counters?: () => Promise<Record<string, number>>;
}

export interface LatencyFigures {
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface DeliveryPhase extends LatencyFigures {
  targetPerSecond: number;
  committed: number;
  committedPerSecond: number;
  received: number;
  /** Distinct events received over the time from the first commit to the last receipt. */
  receiptsPerSecond: number;
  duplicates: number;
  missing: number;
  /** CPU milliseconds per delivered event, per process group (temporal, worker, relay, postgres, bench). */
  cpuMsPerDelivery: CpuGroups;
  /** The machine's one-minute load average at the phase's end: a latency means little without it. */
  loadAverage: number;
  /** With `counters`: each counter's growth over the phase per delivered event. */
  countersPerDelivery?: Record<string, number>;
}

export interface BaselinePhase extends LatencyFigures {
  /** Open loop at a target rate, or `closed loop` with `concurrency` requests in flight. */
  mode: string;
  requests: number;
  requestsPerSecond: number;
  failures: number;
}

export interface DeliveryResults {
  payloadBytes: number;
  baseline: BaselinePhase[];
  delivery: DeliveryPhase[];
  /** With `pair`: every delivery of the run (warm-up included), by relay and by worker. */
  spread?: DeliverySpread;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const COUNTERS_SETTLE_MS = 11_000;

function latencyFigures(values: number[]): LatencyFigures {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99), maxMs: sorted.at(-1) ?? Number.NaN };
}

/**
 * Webhook delivery end to end: events committed (one transaction each) at a steady rate into the
 * outbox, relayed to Temporal by the real relay, POSTed by the real worker to an HTTPS receiver in
 * this process; commit-to-receipt latency per event. Beside it, the baseline: the same signed POST
 * of the same envelope sent directly from this process to the same receiver (undici, as the worker).
 */
export async function deliveryScenario(options: DeliveryScenarioOptions): Promise<DeliveryResults> {
  const certificate = await ensureDevCertificate();
  const receiver = await WebhookReceiver.start(readCertificate(certificate));
  const sql = createSql(options.appUrl, { max: 10, applicationName: 'shopflow-bench-delivery' });
  const taskQueue = `bench-${randomUUID()}`;
  const group = new ProcessGroup((name, code) => {
    throw new Error(`${name} exited during the delivery benchmark (code ${code})`);
  });
  try {
    const shop = await createShop(sql, { slug: `bench-delivery-${Date.now().toString(36)}`, name: 'Delivery benchmark shop' });
    const inbox = `delivery-${randomUUID()}`;
    const env = {
      APP_DATABASE_URL: options.appUrl,
      TEMPORAL_ADDRESS: options.temporalAddress,
      TEMPORAL_TASK_QUEUE: taskQueue,
      OUTBOUND_ALLOW_LOOPBACK: 'true',
      WEBHOOK_EXTRA_CA_FILE: certificate.certFile,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
    };
    // Sealed with the key the worker processes read from this same environment.
    const { flowId, secret } = await withShop(sql, shop.id, (tx) =>
      createFlow(
        tx,
        shop.id,
        { name: 'Benchmark flow', eventType: 'product.updated', url: receiver.url(inbox), state: 'on' },
        null,
        loadSettings({ ...process.env, ...env }).secretsKey,
      ),
    );
    const launched = new Map(
      (options.pair ? ['worker-1', 'worker-2', 'relay-1', 'relay-2'] : ['worker', 'relay']).map((name) => [
        name,
        startBenchProcess(group, name, `workers/${name.split('-')[0]!}.ts`, env),
      ]),
    );
    await Promise.all(
      [...launched].map(([name, child]) =>
        outputMatches(child, name.startsWith('worker') ? /worker polling task queue/ : /outbox relay started/, 90_000, name),
      ),
    );
    // The worker schedules housekeeping on its own queue: a run (every 5 minutes, summing every shop's flows)
    // would land in the figures, and the schedule would outlive the bench on the server.
    const connection = await Connection.connect({ address: options.temporalAddress });
    await removeHousekeepingSchedule(temporalClient(connection, loadSettings().payloadCodecKeys), taskQueue).finally(() =>
      connection.close(),
    );

    let sequence = 0;
    const committedIds: string[] = [];
    const commitOne = async (): Promise<{ id: string; committedAt: number }> => {
      const number = sequence++;
      const id = await withShop(sql, shop.id, (tx) =>
        writeEvent(tx, {
          shopId: shop.id,
          type: 'product.updated',
          resourceId: randomUUID(),
          data: benchProduct(number),
          changes: { fields: ['name', 'variants.price'] },
        }),
      );
      committedIds.push(id);
      return { id, committedAt: Date.now() };
    };
    // First receipt time per event id, indexed as requests arrive (the inbox is scanned once).
    const firstReceipt = new Map<string, number>();
    let scanned = 0;
    const scan = () => {
      const requests = receiver.received(inbox);
      for (; scanned < requests.length; scanned += 1) {
        const request = requests[scanned]!;
        const id = (JSON.parse(request.body) as { id: string }).id;
        if (!firstReceipt.has(id)) firstReceipt.set(id, request.receivedAt.getTime());
      }
      return scanned;
    };
    const drain = async (ids: string[], timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        scan();
        if (ids.every((id) => firstReceipt.has(id))) return;
        await sleep(100);
      }
    };

    // Warm-up: the worker's first workflow tasks and TLS connections, the pools' PostgreSQL backends and
    // the processes' compiled code (50 events in one second left the first phase paying for them:
    // p50 of seconds at 20/s in some runs), and an envelope for the baseline.
    const warmUp: string[] = [];
    await atSteadyRate(20, 5, async () => {
      warmUp.push((await commitOne()).id);
    });
    await drain(warmUp, 60_000);
    const sample = receiver.received(inbox)[0];
    if (!sample) throw new Error('the warm-up events were not delivered within 60 s');
    const payload = sample.body;

    const delivery: DeliveryPhase[] = [];
    for (const rate of options.rates) {
      const commits = new Map<string, number>();
      const before = scan();
      const countersBefore = await options.counters?.();
      const cpuBefore = cpuSnapshot();
      const started = Date.now();
      await atSteadyRate(rate, options.secondsPerRate, async () => {
        const { id, committedAt } = await commitOne();
        commits.set(id, committedAt);
      });
      const lastCommit = Math.max(...commits.values());
      const ids = [...commits.keys()];
      // Under overload the backlog drains at the delivery capacity: allow for at least 20 deliveries a second.
      await drain(ids, 60_000 + ids.length * 50);
      const total = scan();
      const cpu = cpuBetween(cpuBefore, cpuSnapshot());
      // PostgreSQL's statistics reach its views up to 10 s after an idle backend's last commit.
      const countersAfter = countersBefore && (await sleep(COUNTERS_SETTLE_MS).then(() => options.counters!()));
      const latencies: number[] = [];
      let lastReceipt = started;
      for (const [id, committedAt] of commits) {
        const receivedAt = firstReceipt.get(id);
        if (receivedAt === undefined) continue;
        latencies.push(receivedAt - committedAt);
        lastReceipt = Math.max(lastReceipt, receivedAt);
      }
      delivery.push({
        targetPerSecond: rate,
        committed: commits.size,
        committedPerSecond: commits.size / ((lastCommit - started) / 1000),
        received: latencies.length,
        receiptsPerSecond: latencies.length / ((lastReceipt - started) / 1000),
        duplicates: total - before - latencies.length,
        missing: commits.size - latencies.length,
        cpuMsPerDelivery: cpuPer(cpu, latencies.length),
        loadAverage: loadavg()[0]!,
        ...latencyFigures(latencies),
        ...(countersAfter && {
          countersPerDelivery: Object.fromEntries(
            Object.entries(countersAfter).map(([name, value]) => [
              name,
              Math.round(((value - (countersBefore[name] ?? 0)) / Math.max(1, latencies.length)) * 10) / 10,
            ]),
          ),
        }),
      });
    }
    const spread = options.pair
      ? await deliverySpread(
          options.temporalAddress,
          taskQueue,
          committedIds.map((id) => deliveryWorkflowId(flowId, id)),
          launched,
        )
      : undefined;
    await group.stopAll();

    // Baseline: the same envelope, signed the same way, POSTed straight to the same receiver.
    const baselineInbox = `baseline-${randomUUID()}`;
    // Trusts the receiver's certificate like the worker does, with the CA list parsed once: the worker's agent
    // (adapters/outbound/outbound-http.ts) parses it again for every new TLS connection, some 20 ms of blocked
    // event loop each, which at 250/s cascades into pauses of a second or more. Raw HTTPS is the baseline.
    const dispatcher = new Agent({
      connect: { secureContext: createSecureContext({ ca: [...rootCertificates, readFileSync(certificate.certFile, 'utf8')] }) },
      connections: 64,
    });
    const webhook = new Webhook(secret);
    const userAgent = sample.headers['user-agent'] ?? 'Shopflow-Webhooks';
    const postOne = async (): Promise<number | null> => {
      const started = performance.now();
      const id = `msg_${randomUUID()}`;
      const now = new Date();
      const response = await request(receiver.url(baselineInbox), {
        method: 'POST',
        dispatcher,
        headers: {
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
          'webhook-signature': webhook.sign(id, now, payload),
          'content-type': 'application/json',
          'user-agent': userAgent,
        },
        body: payload,
      }).catch(() => undefined);
      if (!response) return null;
      await response.body.text();
      return response.statusCode >= 200 && response.statusCode < 300 ? performance.now() - started : null;
    };
    const baseline: BaselinePhase[] = [];
    const measure = async (mode: string, run: (record: (latency: number | null) => void) => Promise<void>) => {
      const latencies: number[] = [];
      let failures = 0;
      const started = performance.now();
      await run((latency) => (latency === null ? (failures += 1) : latencies.push(latency)));
      const seconds = (performance.now() - started) / 1000;
      baseline.push({
        mode,
        requests: latencies.length + failures,
        requestsPerSecond: latencies.length / seconds,
        failures,
        ...latencyFigures(latencies),
      });
    };
    // Each phase after 2 s at its rate unmeasured: new TLS connections (each parses the CA list) stay out of the figures.
    for (const rate of options.rates) {
      await atSteadyRate(rate, 2, async () => void (await postOne()));
      await measure(`open loop at ${rate}/s`, (record) => atSteadyRate(rate, options.secondsPerRate, async () => record(await postOne())));
    }
    const closedLoop = async (seconds: number, record: (latency: number | null) => void) => {
      const until = performance.now() + seconds * 1000;
      await Promise.all(
        Array.from({ length: options.baselineConcurrency }, async () => {
          while (performance.now() < until) record(await postOne());
        }),
      );
    };
    await closedLoop(2, () => {});
    await measure(`closed loop, ${options.baselineConcurrency} in flight`, (record) => closedLoop(options.secondsPerRate, record));
    await dispatcher.close();

    const results: DeliveryResults = { payloadBytes: Buffer.byteLength(payload), baseline, delivery, ...(spread ? { spread } : {}) };
    printDeliveryResults(results);
    return results;
  } finally {
    await group.stopAll();
    await receiver.close();
    await sql.end();
  }
}

export function printDeliveryResults(results: DeliveryResults): void {
  const ms = (value: number) => (Number.isFinite(value) ? `${value.toFixed(0)} ms` : '—').padStart(8);
  const rate = (value: number) => value.toFixed(0).padStart(6);
  console.log(`envelope ${results.payloadBytes} bytes, one flow, HTTPS receiver in the bench process`);
  for (const row of results.baseline) {
    console.log(
      `${`direct POST, ${row.mode}`.padEnd(40)} ${rate(row.requestsPerSecond)} req/s                    p50 ${ms(row.p50Ms)}   p99 ${ms(row.p99Ms)}   failures ${row.failures}`,
    );
  }
  for (const row of results.delivery) {
    console.log(
      `${`outbox → webhook at ${row.targetPerSecond}/s`.padEnd(40)} ${rate(row.committedPerSecond)} commits/s ${rate(row.receiptsPerSecond)} receipts/s   p50 ${ms(row.p50Ms)}   p99 ${ms(row.p99Ms)}   ` +
        `missing ${row.missing}   duplicates ${row.duplicates}`,
    );
    console.log(`${''.padEnd(40)} CPU per delivery: ${formatCpu(row.cpuMsPerDelivery)}`);
  }
  const spread = results.spread;
  if (spread) {
    const counts = (byProcess: Record<string, number>) =>
      Object.entries(byProcess)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, count]) => `${name} ${count}`)
        .join(', ');
    console.log(
      `two workers, two relays: ${spread.workflows} deliveries, ${spread.runs} runs on the task queue; started by ${counts(spread.startsByRelay)}; ` +
        `first task run by ${counts(spread.firstTasksByWorker)}`,
    );
  }
}

/** A product snapshot of a realistic size (about 1 KiB of envelope). */
function benchProduct(number: number): Record<string, unknown> {
  return {
    id: randomUUID(),
    name: `Áo thun cotton ${number}`,
    code: `SP${String(number).padStart(6, '0')}`,
    status: 'active',
    categoryId: randomUUID(),
    variants: [0, 1, 2].map((index) => ({
      id: randomUUID(),
      code: `SP${String(number).padStart(6, '0')}-${index}`,
      barcode: `893${String(number * 10 + index).padStart(10, '0')}`,
      price: `${(149_000 + index * 10_000).toString()}.000`,
      attributes: [{ name: 'Size', value: ['S', 'M', 'L'][index] }],
    })),
    updatedAt: new Date().toISOString(),
  };
}
