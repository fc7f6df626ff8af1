import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, it } from 'vitest';
import { logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { testCodecKeys, timersOf } from '../support/temporal.js';
import { shopflowDataConverter } from '../../config/payload-codec.js';
import { cachedWorkflowBundle } from '../../workers/setup/workflow-bundle.js';
import { workflowsPath } from '../../workers/setup/create-worker.js';
import { withShop } from '../../domain/kernel/index.js';
import { writeEvent } from '../../domain/events/index.js';
import { requestsForEvent } from '../../domain/flows/index.js';
import { deliveryOutcome, deliveryWorkflowId, startDelivery } from '../../workflows/deliveries/delivery-starter.js';

/** Issue 31 on the admin API: addresses checked on save as at delivery, test-runs of what is on screen, deliveries a person can read and hurry. */
const { db, api, shop, receiver, temporal } = useSuite({ api: true, shop: true, receiver: true, worker: true });
let admin: AdminRequest;
let viewer: AdminRequest;

beforeAll(async () => {
  ({ admin, viewer } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
});

interface Flow {
  id: string;
  url: string;
  state: string;
  httpEnabled: boolean;
}

async function newFlow(body: Record<string, unknown>): Promise<Flow> {
  const response = await admin('POST', '/flows', { name: 'Đơn sang ERP', eventType: 'order.created', ...body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { flow: Flow }).flow;
}

interface HistoryRow {
  deliveryId: string;
  status: string;
  testRun: boolean;
  about: string | null;
  nextAttemptAt: string | null;
  attemptsLeft: number | null;
  data?: unknown;
}

async function history(as: AdminRequest, flowId: string): Promise<HistoryRow[]> {
  const response = await as('GET', `/flows/${flowId}/deliveries`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: HistoryRow[] }).data;
}

describe('the HTTP-send address', () => {
  it('is refused on save, on edit and on test-run as a delivery refuses it: https only, public addresses only, a field error', async () => {
    for (const url of ['https://10.0.0.1/x', 'https://[::ffff:192.168.1.1]/x', 'https://169.254.169.254/latest']) {
      const body = await expectProblem(
        await admin('POST', '/flows', { name: 'x', eventType: 'order.created', url }),
        400,
        'validation-failed',
      );
      expect(body.errors).toEqual([
        { path: 'url', message: 'the destination is not allowed: only public internet addresses are reachable' },
      ]);
    }
    const plain = await expectProblem(
      await admin('POST', '/flows', { name: 'x', eventType: 'order.created', url: 'http://example.com/hook' }),
      400,
      'validation-failed',
    );
    expect(plain.errors).toEqual([{ path: 'url', message: 'must be an https:// address' }]);

    const flow = await newFlow({ url: receiver.url('saved') });
    const edited = await expectProblem(await admin('PATCH', `/flows/${flow.id}`, { url: 'https://10.0.0.1/x' }), 400, 'validation-failed');
    expect(edited.errors).toEqual([{ path: 'url', message: expect.stringMatching(/only public internet addresses/) }]);
    const tested = await expectProblem(
      await admin('POST', `/flows/${flow.id}/test-run`, { url: 'https://10.0.0.1/x' }),
      400,
      'validation-failed',
    );
    expect(tested.errors).toEqual([{ path: 'url', message: expect.stringMatching(/only public internet addresses/) }]);
    expect(((await (await admin('GET', `/flows/${flow.id}`)).json()) as Flow).url).toBe(receiver.url('saved'));
  });
});

describe('a test-run', () => {
  it('sends to the address on screen, unsaved, and saves nothing; its content is in the history for the owner, not for a viewer', async () => {
    const flow = await newFlow({ url: receiver.url('saved-address') });
    const inbox = `on-screen-${randomUUID()}`;
    const onScreen = receiver.url(inbox);
    const response = await admin('POST', `/flows/${flow.id}/test-run`, {
      url: onScreen,
      eventType: 'customer.created',
      permissions: ['pos.customers.read'],
    });
    expect(response.status).toBe(200);
    const run = (await response.json()) as { status: string; request: { url: string; body: string } };
    expect(run).toMatchObject({ status: 'delivered', request: { url: onScreen } });
    expect(JSON.parse(run.request.body)).toMatchObject({ type: 'customer.created', test: true, data: { name: 'Nguyễn Văn An' } });
    expect(receiver.received(inbox)).toHaveLength(1);
    expect(receiver.received('saved-address')).toHaveLength(0);
    expect(await (await admin('GET', `/flows/${flow.id}`)).json()).toMatchObject({
      url: receiver.url('saved-address'),
      eventType: 'order.created',
    });

    const [tested] = await history(admin, flow.id);
    expect(tested).toMatchObject({ testRun: true, status: 'delivered', about: 'Nguyễn Văn An', data: { name: 'Nguyễn Văn An' } });
    const [seen] = await history(viewer, flow.id);
    expect(seen).toMatchObject({ testRun: true, about: null });
    expect(seen).not.toHaveProperty('data');
  });

  it('that failed cannot be resent (it is no delivery of an event)', async () => {
    const inbox = `failing-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 500 }]);
    const flow = await newFlow({ url: receiver.url(inbox) });
    expect(((await (await admin('POST', `/flows/${flow.id}/test-run`)).json()) as { status: string }).status).toBe('failed');
    const [failed] = await history(admin, flow.id);
    expect(failed).toMatchObject({
      testRun: true,
      status: 'failed',
      about: 'DH000123 · Nguyễn Văn An',
      nextAttemptAt: null,
      attemptsLeft: null,
    });
    await expectProblem(await admin('POST', `/flows/${flow.id}/deliveries/${failed!.deliveryId}/resend`), 404, 'not-found');
  });
});

describe('a retrying delivery', () => {
  it('says what it is about, when its next attempt is and how many are left, and is retried now on request', async () => {
    const inbox = `retrying-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 503 }, { status: 200 }]);
    const flow = await newFlow({ url: receiver.url(inbox), state: 'on' });
    const [request] = await withShop(db.app, shop.shopId, async (tx) => {
      const data = { code: 'DH-0042', billFullName: 'Trần Thị Mai', status: 'new' };
      return requestsForEvent(tx, await writeEvent(tx, { shopId: shop.shopId, type: 'order.created', resourceId: randomUUID(), data }));
    });
    const started = Date.now();
    // A minute's wait after the first attempt (±20 % jitter), then one more attempt: two in all.
    await startDelivery(temporal.deliveries, { ...request!, retryDelaysMs: [60_000] });
    await expect.poll(async () => (await history(admin, flow.id))[0]?.attemptsLeft, { timeout: 20_000 }).toBe(1);
    const [retrying] = await history(admin, flow.id);
    expect(retrying).toMatchObject({ status: 'retrying', about: 'DH-0042 · Trần Thị Mai', attemptsLeft: 1 });
    // The next attempt the page shows is the run's timer (the schedule's minute within its jitter) on.
    // The wait is noted (the activity's write) before the workflow task that sets the timer completes.
    const run = temporal.client.workflow.getHandle(deliveryWorkflowId(flow.id, request!.eventId));
    await expect.poll(async () => (await timersOf(run)).length, { timeout: 20_000 }).toBe(1);
    const [timer] = await timersOf(run);
    expect(timer).toBeGreaterThanOrEqual(48_000);
    expect(timer).toBeLessThanOrEqual(72_000);
    expect(Date.parse(retrying!.nextAttemptAt!) - started).toBeGreaterThanOrEqual(timer!);
    expect((await history(viewer, flow.id))[0]).toMatchObject({ about: null, attemptsLeft: 1 });

    await expectProblem(await viewer('POST', `/flows/${flow.id}/deliveries/${retrying!.deliveryId}/retry`), 403, 'insufficient-permission');
    const other = await newFlow({ url: receiver.url('other') });
    await expectProblem(await admin('POST', `/flows/${other.id}/deliveries/${retrying!.deliveryId}/retry`), 404, 'not-found');
    const retried = await admin('POST', `/flows/${flow.id}/deliveries/${retrying!.deliveryId}/retry`);
    expect(retried.status).toBe(202);
    const handle = temporal.client.workflow.getHandle(deliveryWorkflowId(flow.id, request!.eventId));
    const result = await deliveryOutcome(handle);
    expect(result.status).toBe('delivered');
    // Retried now: before the attempt the schedule had set.
    expect(Date.now()).toBeLessThan(Date.parse(retrying!.nextAttemptAt!));
    expect(receiver.received(inbox)).toHaveLength(2);
    expect((await history(admin, flow.id))[0]).toMatchObject({ status: 'delivered', nextAttemptAt: null, attemptsLeft: null });
    await expectProblem(await admin('POST', `/flows/${flow.id}/deliveries/${retrying!.deliveryId}/retry`), 409, 'conflict');

    // The run (its noted wait, the ask, the wait cut short) replays with today's code.
    const { bundle } = await cachedWorkflowBundle(workflowsPath);
    const dataConverter = shopflowDataConverter(testCodecKeys);
    await Worker.runReplayHistory({ workflowBundle: bundle, dataConverter }, await handle.fetchHistory(), handle.workflowId);
  });
});

describe('a flow whose receiver answered 410 Gone', () => {
  it('shows HTTP sending off while the flow is on, and switching it on again turns sending back on', async () => {
    const inbox = `gone-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 410 }]);
    const flow = await newFlow({ url: receiver.url(inbox), state: 'on' });
    expect(((await (await admin('POST', `/flows/${flow.id}/test-run`)).json()) as { status: string }).status).toBe('gone');
    expect(await (await admin('GET', `/flows/${flow.id}`)).json()).toMatchObject({ state: 'on', httpEnabled: false });
    const switched = await admin('POST', `/flows/${flow.id}/state`, { state: 'on' });
    expect(await switched.json()).toMatchObject({ state: 'on', httpEnabled: true });
  });
});
