import { randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  claimQueuedEvents,
  completeQueuedEvents,
  eventQueueState,
  MATCHING_ATTEMPTS,
  recordMatchingFailure,
  requeueSetAsideEvents,
  writeEvent,
} from '../../domain/events/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { watchBacklogPace, watchEventQueue } from '../../telemetry/relay-metrics.js';
import { ShopPace } from '../../workflows/deliveries/shop-pace.js';
import { chatKey, simulatorPage } from '../chat/chat-fixtures.js';
import { deliverAnswered } from '../support/deliveries.js';
import { growthOf, ownSamples, sumOf } from '../support/metrics.js';
import { freshWindow } from '../support/rate-window.js';
import { useSuite } from '../support/suite.js';

/**
 * Each metric of docs/operators.md ("Metrics") moves when what it counts happens (issue 29): the
 * in-process API, worker and activities count into this process's registry, which is what each
 * process serves at /metrics (metrics-endpoints.test.ts serves the real processes' own).
 */
const { db, temporal, receiver, shop, chat, request } = useSuite({
  api: { routes: (app) => app.post('/api/open/v1/test/messages', { config: { rateCounter: 'messages' } }, async () => ({ sent: true })) },
  shop: true,
  receiver: true,
  worker: true,
  chat: true,
});

const newFlow = (name: string) => shop.newFlow({ name, eventType: 'product.updated', url: receiver.url('x'), state: 'on' });
const attempts = (labels: Record<string, string>) =>
  growthOf.bind(null, 'shopflow_webhook_attempts_total', { test_run: 'false', ...labels });

describe('delivery metrics', () => {
  it('count attempts by outcome, status class and number, and deliveries by how they ended', async () => {
    const { flowId } = await newFlow('Metrics');
    const finished = (outcome: string) => growthOf.bind(null, 'shopflow_deliveries_finished_total', { outcome, test_run: 'false' });

    expect(
      await attempts({ outcome: 'delivered', status_class: '2xx', attempt: '1' })(() =>
        deliverAnswered({ temporal, receiver, shop }, flowId, 200),
      ),
    ).toBe(1);
    expect(await finished('gone')(() => deliverAnswered({ temporal, receiver, shop }, flowId, 410))).toBe(1);
    // A 500 twice on a two-attempt schedule: two failed attempts, numbered, then a failed delivery.
    const failing = () => deliverAnswered({ temporal, receiver, shop }, flowId, 500, { retryDelaysMs: [10] });
    const before = await ownSamples();
    await failing();
    const after = await ownSamples();
    const grown = (name: string, labels: Record<string, string>) => sumOf(after, name, labels) - sumOf(before, name, labels);
    expect(grown('shopflow_webhook_attempts_total', { outcome: 'retry', status_class: '5xx', attempt: '1' })).toBe(1);
    expect(grown('shopflow_webhook_attempts_total', { outcome: 'retry', status_class: '5xx', attempt: '2' })).toBe(1);
    expect(grown('shopflow_deliveries_finished_total', { outcome: 'failed', test_run: 'false' })).toBe(1);
    expect(grown('shopflow_webhook_attempt_duration_seconds_count', { outcome: 'retry' })).toBe(2);

    // A test-run counts apart.
    const testRuns = await growthOf('shopflow_webhook_attempts_total', { test_run: 'true' }, () =>
      deliverAnswered({ temporal, receiver, shop }, flowId, 200, { testRun: true }),
    );
    expect(testRuns).toBe(1);
  });
});

describe('API request metrics', () => {
  it('time every answer by method, route pattern and status, with no id or key in a label', async () => {
    const { key } = await shop.newKey(['pos.orders.read']);
    const orderId = randomUUID();
    const requests = (labels: Record<string, string>) => growthOf.bind(null, 'shopflow_http_request_duration_seconds_count', labels);
    expect(await requests({ method: 'GET', route: '/api/open/v1/shop', status: '200' })(() => request('GET', '/shop', { key }))).toBe(1);
    expect(await requests({ route: '/api/open/v1/shop', status: '401' })(() => request('GET', '/shop'))).toBe(1);
    expect(await requests({ route: '/api/open/v1/orders/:id', status: '404' })(() => request('GET', `/orders/${orderId}`, { key }))).toBe(
      1,
    );
    expect(await requests({ route: 'unmatched', status: '404' })(() => request('GET', `/nothing/${orderId}`, { key }))).toBe(1);
    const labels = (await ownSamples())
      .filter((sample) => sample.name.startsWith('shopflow_http_'))
      .flatMap((sample) => Object.values(sample.labels));
    expect(labels.filter((value) => value.includes(orderId) || value.includes(key) || value.includes(shop.shopId))).toEqual([]);
  });

  it('count rate-limit refusals by area', async () => {
    const { key } = await shop.newKey([]);
    await freshWindow(20);
    const refused = await growthOf('shopflow_rate_limit_refusals_total', { area: 'open_api' }, async () => {
      // The messages counter allows 60 a minute per key.
      for (let sent = 0; sent < 62; sent += 1) await request('POST', '/test/messages', { key, body: {} });
    });
    expect(refused).toBe(2);
  });
});

describe('chat platform metrics', () => {
  it('count calls to the platform by operation and outcome', async () => {
    const page = await simulatorPage(db.app, shop.shopId, chat, ['Khách Metrics']);
    const key = await chatKey(db.app, shop, [page.pageId]);
    const { conversationId } = page.customers[0]!;
    const send = () => request('POST', `/conversations/${conversationId}/messages`, { key, body: { text: 'Dạ shop nghe' } });
    const calls = (outcome: string) => growthOf.bind(null, 'shopflow_chat_platform_calls_total', { operation: 'sendMessage', outcome });
    expect(await calls('ok')(async () => expect((await send()).status).toBe(201))).toBe(1);
    chat.platform.faults.inject({ kind: 'send', effect: 'unavailable', count: 1 });
    expect(await calls('unavailable')(async () => expect((await send()).status).toBe(503))).toBe(1);
    expect(
      sumOf(await ownSamples(), 'shopflow_chat_platform_call_duration_seconds_count', { operation: 'sendMessage' }),
    ).toBeGreaterThanOrEqual(2);
  });
});

describe('relay lag', () => {
  it("reports the outbox queue's depth, the age of its oldest event and the events set aside", async () => {
    // Ended with the test: the process's registry outlives this file and its database (vitest's isolate: false).
    const unwatch = watchEventQueue(() => db.app.begin((tx) => eventQueueState(tx)));
    onTestFinished(unwatch);
    const gauges = async () => {
      const samples = await ownSamples();
      return {
        queued: sumOf(samples, 'shopflow_relay_queued_events'),
        age: sumOf(samples, 'shopflow_relay_oldest_queued_event_age_seconds'),
        setAside: sumOf(samples, 'shopflow_relay_set_aside_events'),
      };
    };
    await newFlow('Queued');
    // No relay runs on this suite's database: the event waits in the queue.
    await withShop(db.app, shop.shopId, (tx) =>
      writeEvent(tx, {
        shopId: shop.shopId,
        type: 'product.updated',
        resourceId: randomUUID(),
        data: { id: randomUUID() },
        changes: { fields: ['name'] },
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const waiting = await gauges();
    expect(waiting.queued).toBeGreaterThanOrEqual(1);
    expect(waiting.age).toBeGreaterThanOrEqual(1);
    expect(waiting.setAside).toBe(0);
    // Their matching fails three times: set aside, off the queue.
    const waited = await claimQueuedEvents(db.app, 1_000);
    for (const event of waited) await recordMatchingFailure(db.app, { ...event, failures: MATCHING_ATTEMPTS - 1 }, 'Error: a test');
    expect(await gauges()).toEqual({ queued: 0, age: 0, setAside: waited.length });
    await requeueSetAsideEvents(db.app);
    const claimed = await claimQueuedEvents(db.app, 1_000);
    expect(claimed).toHaveLength(waited.length);
    await completeQueuedEvents(
      db.app,
      claimed.map((queued) => queued.eventId),
    );
    expect(await gauges()).toEqual({ queued: 0, age: 0, setAside: 0 });
    // The watch ended, the registry reads nothing of this database again (its files after this one share the process).
    unwatch();
    expect((await ownSamples()).filter((sample) => sample.name.startsWith('shopflow_relay_'))).toEqual([]);
  });

  it("reports the slowest pace the relay gives a shop's backlog: the configured one with none, from one as the machine has room", async () => {
    let clock = 0;
    const pace = new ShopPace(10, 10, { now: () => clock, machineBusy: () => 0.3 });
    const unwatch = watchBacklogPace(() => pace.backlogPerSecond);
    onTestFinished(unwatch);
    const gauge = async () => sumOf(await ownSamples(), 'shopflow_relay_backlog_pace_events_per_second');
    expect(await gauge()).toBe(10);
    // A claim of a shop's events that had waited five seconds: a backlog, at one a second.
    pace.took([{ shopId: randomUUID(), waitedMs: 5_000 }]);
    expect(await gauge()).toBe(1);
    // Three seconds of a machine 30 % busy: one more each.
    for (let second = 0; second < 3; second++) {
      clock += 1_000;
      pace.allowances();
    }
    expect(await gauge()).toBe(4);
    unwatch();
    expect((await ownSamples()).filter((sample) => sample.name.startsWith('shopflow_relay_'))).toEqual([]);
  });
});
