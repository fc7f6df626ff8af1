import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parser as promql } from '@prometheus-io/lezer-promql';
import { createFlow } from '../../domain/flows/flows.js';
import { writeEvent } from '../../domain/events/outbox.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { ProcessGroup } from '../../scripts/processes.js';
import { freeLoopbackPort } from '../../telemetry/metrics-server.js';
import { testSecretsKey } from '../support/fixtures.js';
import { declaredFamilies, parseExposition, sumOf } from '../support/metrics.js';
import { processEnv, startApiWorkerRelay, stopApiWorkerRelay } from '../support/processes.js';
import { useSuite } from '../support/suite.js';

/**
 * The real API, worker and relay processes, as `npm run dev` runs them, each serve /metrics on their
 * own listener: every metric docs/operators.md lists for a process is there, with the Temporal SDK's
 * own in the worker and the relay, and a delivery relayed by them moves their counters.
 */
type ProcessName = 'api' | 'worker' | 'relay';

const { db, receiver, shop } = useSuite({ shop: true, receiver: true });
const group = new ProcessGroup(
  (name, code) => exits.push(`${name} (code ${code})`),
  () => undefined,
);
const exits: string[] = [];
const taskQueue = `metrics-test-${randomUUID()}`;
const metricsUrl = {} as Record<ProcessName, string>;
let apiUrl: string;

beforeAll(async () => {
  const [api, apiMetrics, workerMetrics, relayMetrics] = await Promise.all([0, 1, 2, 3].map(() => freeLoopbackPort()));
  Object.assign(metricsUrl, {
    api: `http://127.0.0.1:${apiMetrics}/metrics`,
    worker: `http://127.0.0.1:${workerMetrics}/metrics`,
    relay: `http://127.0.0.1:${relayMetrics}/metrics`,
  });
  apiUrl = await startApiWorkerRelay(
    group,
    processEnv(db.appUrl, taskQueue, {
      PORT: String(api),
      API_METRICS_PORT: String(apiMetrics),
      WORKER_METRICS_PORT: String(workerMetrics),
      RELAY_METRICS_PORT: String(relayMetrics),
    }),
  );
}, 120_000);
afterAll(async () => {
  await stopApiWorkerRelay(group, taskQueue);
});

const scrape = async (process: ProcessName) => {
  const answer = await fetch(metricsUrl[process]);
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return answer.text();
};

/** The metrics table of docs/operators.md: each `shopflow_…` name with the processes that serve it. */
function documentedMetrics(): { name: string; processes: ProcessName[] }[] {
  const runbook = readFileSync(new URL('../../docs/operators.md', import.meta.url), 'utf8');
  return [...runbook.matchAll(/^\| `(shopflow_[a-z_]+)` \| ([a-z, ]+) \|/gm)].map((match) => ({
    name: match[1]!,
    processes: match[2]!.split(',').map((name) => name.trim() as ProcessName),
  }));
}

/** The PromQL of the runbook's alerts table (its second column). */
function alertExpressions(): string[] {
  const runbook = readFileSync(new URL('../../docs/operators.md', import.meta.url), 'utf8');
  const table = runbook.slice(runbook.indexOf('| alert | PromQL |'));
  return [...table.matchAll(/^\| [^|`]+ \| `([^`]+)` \|/gm)].map((match) => match[1]!);
}

/** Where a PromQL expression does not parse (lezer-promql, the parser of Prometheus's own UI). */
function syntaxErrors(expression: string): number[] {
  const errors: number[] = [];
  promql.parse(expression).iterate({ enter: (node) => void (node.type.isError && errors.push(node.from)) });
  return errors;
}

describe('/metrics of each process', () => {
  it('serves every metric the runbook lists for it, Node’s process metrics, and the Temporal SDK’s (the API’s for its shipments’ worker)', async () => {
    const documented = documentedMetrics();
    expect(documented.length).toBeGreaterThanOrEqual(10);
    for (const process of ['api', 'worker', 'relay'] as const) {
      const families = declaredFamilies(await scrape(process));
      const missing = documented.filter((metric) => metric.processes.includes(process) && !families.has(metric.name));
      expect(
        missing.map((metric) => metric.name),
        process,
      ).toEqual([]);
      expect(families.has('process_cpu_seconds_total'), process).toBe(true);
      expect(families.has('nodejs_eventloop_lag_p99_seconds'), process).toBe(true);
      const temporal = [...families].filter((name) => name.startsWith('temporal_'));
      expect(temporal, process).toEqual(expect.arrayContaining(['temporal_worker_task_slots_available', 'temporal_request_total']));
    }
  });

  it('backs every alert of the runbook: its PromQL parses and names only metrics the processes serve', async () => {
    const served = new Set<string>();
    for (const process of ['api', 'worker', 'relay'] as const) for (const name of declaredFamilies(await scrape(process))) served.add(name);
    const alerts = alertExpressions();
    expect(alerts.length).toBeGreaterThanOrEqual(8);
    for (const expression of alerts) {
      expect(syntaxErrors(expression), expression).toEqual([]);
      const named = [...expression.matchAll(/\b((?:shopflow|temporal|process|nodejs)_[a-z_]+)/g)].map((match) =>
        match[1]!.replace(/_(?:bucket|count|sum)$/, ''),
      );
      expect(
        named.filter((name) => !served.has(name)),
        expression,
      ).toEqual([]);
    }
  });

  it('is served apart from the API: not on its public port, and nothing but GET /metrics on its own', async () => {
    expect((await fetch(`${apiUrl}/metrics`)).status).toBe(404);
    expect((await fetch(metricsUrl.api.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(metricsUrl.worker, { method: 'POST' })).status).toBe(404);
  });

  it('moves with what the processes do: the API’s requests, and a delivery the relay and worker make', async () => {
    const requestsBefore = sumOf(parseExposition(await scrape('api')), 'shopflow_http_request_duration_seconds_count', {
      route: '/healthz',
    });
    await fetch(`${apiUrl}/healthz`);
    expect(sumOf(parseExposition(await scrape('api')), 'shopflow_http_request_duration_seconds_count', { route: '/healthz' })).toBe(
      requestsBefore + 1,
    );

    const inbox = randomUUID();
    receiver.respondWith(inbox, [{ status: 200 }]);
    await withShop(db.app, shop.shopId, async (tx) => {
      await createFlow(
        tx,
        shop.shopId,
        { name: 'Metrics', eventType: 'product.updated', url: receiver.url(inbox), state: 'on' },
        null,
        testSecretsKey,
      );
      await writeEvent(tx, {
        shopId: shop.shopId,
        type: 'product.updated',
        resourceId: randomUUID(),
        data: { id: randomUUID() },
        changes: { fields: ['name'] },
      });
    });
    const delivered = async () => {
      const scraped = await Promise.all((['worker', 'relay'] as const).map(async (process) => parseExposition(await scrape(process))));
      return scraped.reduce((sum, samples) => sum + sumOf(samples, 'shopflow_deliveries_finished_total', { outcome: 'delivered' }), 0);
    };
    await expect.poll(delivered, { timeout: 30_000, interval: 250 }).toBe(1);
    expect(receiver.received(inbox)).toHaveLength(1);
    const relay = parseExposition(await scrape('relay'));
    expect(sumOf(relay, 'shopflow_relay_queued_events')).toBe(0);
    expect(sumOf(relay, 'shopflow_relay_oldest_queued_event_age_seconds')).toBe(0);
    // A backlog's pace: the configured 10 a second, or down to 1 while this machine is busy.
    expect(sumOf(relay, 'shopflow_relay_backlog_pace_events_per_second')).toBeGreaterThanOrEqual(1);
    expect(sumOf(relay, 'shopflow_relay_backlog_pace_events_per_second')).toBeLessThanOrEqual(10);
    expect(exits).toEqual([]);
  });
});
