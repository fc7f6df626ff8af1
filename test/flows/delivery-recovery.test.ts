import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { createShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { TEST_WORKFLOW_SEAL_KEY, timersOf } from '../support/temporal.js';
import { testSecretsKey } from '../support/fixtures.js';
import { seal, withShop } from '../../domain/kernel/index.js';
import { writeEvent } from '../../domain/events/index.js';
import { countFailedDeliveries, createFlow, requestsForEvent } from '../../domain/flows/index.js';
import { deliveryOutcome, deliveryWorkflowId, startDelivery } from '../../workflows/deliveries/delivery-starter.js';
import { recoveryWorkflowId } from '../../workflows/deliveries/recovery-starter.js';
import { deliveryRecoveryWorkflow } from '../../workflows/deliveries/recovery-workflow.js';

/**
 * Issue 32, recovery in one step: every failed delivery of a flow since a time, resent as one batch
 * (one parent workflow, the resends its children), paced, safe to start twice, its progress readable.
 */
const { db, api, shop, receiver, temporal } = useSuite({ api: true, shop: true, receiver: true, worker: true });
let admin: AdminRequest;
let viewer: AdminRequest;

beforeAll(async () => {
  ({ admin, viewer } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
});

interface Recovery {
  workflowId: string;
  state: string;
  since: string;
  perMinute: number;
  found: number;
  resent: number;
  skipped: number;
  delivered: number;
  stillFailing: number;
  joined?: boolean;
}

async function newFlow(url: string): Promise<string> {
  const response = await admin('POST', '/flows', {
    name: `Recovery ${randomUUID().slice(0, 8)}`,
    eventType: 'product.updated',
    url,
    state: 'on',
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { flow: { id: string } }).flow.id;
}

async function moveFlow(flowId: string, url: string): Promise<void> {
  expect((await admin('PATCH', `/flows/${flowId}`, { url })).status).toBe(200);
}

/** `count` deliveries of new events to the flow, each failing at once (no retries) at the flow's address; their delivery ids. */
async function failedDeliveries(flowId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const requests = await withShop(db.app, shop.shopId, async (tx) => {
      const data = { id: randomUUID(), name: `Áo thun ${index}` };
      return requestsForEvent(tx, await writeEvent(tx, { shopId: shop.shopId, type: 'product.updated', resourceId: data.id, data }));
    });
    const request = requests.find((candidate) => candidate.flowId === flowId)!;
    await startDelivery(temporal.deliveries, { ...request, retryDelaysMs: [] });
    const outcome = await deliveryOutcome(temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, request.eventId)));
    expect(outcome.status).toBe('failed');
    ids.push(request.deliveryId);
  }
  return ids;
}

async function progress(flowId: string, since?: string): Promise<Recovery> {
  const response = await admin('GET', `/flows/${flowId}/recovery${since ? `?since=${encodeURIComponent(since)}` : ''}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Recovery;
}

async function startBatch(flowId: string, body: Record<string, unknown>): Promise<Recovery> {
  const response = await admin('POST', `/flows/${flowId}/recovery`, body);
  expect(response.status).toBe(202);
  return (await response.json()) as Recovery;
}

async function statuses(flowId: string): Promise<Record<string, string>> {
  const history = (await (await admin('GET', `/flows/${flowId}/deliveries?limit=100`)).json()) as {
    data: { deliveryId: string; status: string }[];
  };
  return Object.fromEntries(history.data.map((delivery) => [delivery.deliveryId, delivery.status]));
}

describe('resending the failed deliveries of a flow since a time', () => {
  it('resends each once, paced, with its own webhook-id, as children of one batch that a second start joins', async () => {
    const [broken, fixed] = [`broken-${randomUUID()}`, `fixed-${randomUUID()}`];
    receiver.respondWith(broken, [{ status: 500, body: 'down' }]);
    const flowId = await newFlow(receiver.url(broken));
    const [before] = await failedDeliveries(flowId, 1);
    const since = new Date().toISOString();
    // Three answered 500, two found no receiver at all; then the receiver is back, at a new address.
    const answered500 = await failedDeliveries(flowId, 3);
    await moveFlow(flowId, 'https://127.0.0.1:9/unreachable');
    const unreachable = await failedDeliveries(flowId, 2);
    await moveFlow(flowId, receiver.url(fixed));
    // Back, and slower than a tick: each resend is still failed when the next page is read, after it.
    receiver.respondWith(fixed, [{ status: 200, delayMs: 1_500 }]);
    const failed = [...answered500, ...unreachable];

    const first = await startBatch(flowId, { since, perMinute: 60 });
    const second = await startBatch(flowId, { since: since.replace('Z', '+00:00'), perMinute: 600 });
    expect(first).toMatchObject({ joined: false, state: 'running', found: 5, perMinute: 60, since });
    expect(first.workflowId).toBe(recoveryWorkflowId(flowId, since));
    expect(second).toMatchObject({ joined: true, workflowId: first.workflowId, perMinute: 60, found: 5 });

    await expect
      .poll(() => progress(flowId, since), { timeout: 30_000, interval: 500 })
      .toMatchObject({ state: 'done', found: 5, resent: 5, skipped: 0, delivered: 5, stillFailing: 0 });
    expect(await progress(flowId)).toMatchObject({ workflowId: first.workflowId, delivered: 5 });

    const sent = receiver.received(fixed);
    expect(sent.map((request) => request.headers['webhook-id']).sort()).toEqual([...failed].sort());
    // 60 a minute: one resend a tick, a second's timer between them, as the batch's history holds it
    // (the arrivals' own gaps are the machine's, not the pace's).
    const timersMs = await timersOf(temporal.client.workflow.getHandle(first.workflowId));
    expect(timersMs.length).toBeGreaterThanOrEqual(4);
    expect(new Set(timersMs)).toEqual(new Set([1_000]));

    const now = await statuses(flowId);
    expect(failed.map((deliveryId) => now[deliveryId])).toEqual(failed.map(() => 'delivered'));
    expect(now[before!]).toBe('failed');

    const parent = await temporal.client.workflow.getHandle(first.workflowId).describe();
    expect(parent.type).toBe('deliveryRecoveryWorkflow');
    const child = await temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, eventOf(sent[0]!.body))).describe();
    expect(child.parentExecution?.workflowId).toBe(first.workflowId);

    const log = await withShop(
      db.app,
      shop.shopId,
      (tx) => tx<{ actorUserId: string | null; details: Record<string, unknown> }[]>`
        select actor_user_id, details from shop_log where action = 'flow.recovery_started' and subject_id = ${flowId}`,
    );
    expect(log).toHaveLength(1);
    expect(log[0]!.actorUserId).not.toBeNull();
    expect(log[0]!.details).toMatchObject({ since, perMinute: 60, found: 5, workflowId: first.workflowId });
  });

  it('leaves a delivery resent by hand meanwhile to that resend, and counts a resend failing again as still failing', async () => {
    const inbox = `meanwhile-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 500 }]);
    const flowId = await newFlow(receiver.url(inbox));
    const since = new Date().toISOString();
    const [first, second, third] = await failedDeliveries(flowId, 3);
    // The batch's first resend and the hand resend are answered; the batch's second resend fails again.
    receiver.respondWith(inbox, [{ status: 200 }, { status: 200 }, { status: 503 }]);
    const batchStart = Date.now();
    expect(await startBatch(flowId, { since, perMinute: 30 })).toMatchObject({ found: 3 });
    expect((await admin('POST', `/flows/${flowId}/deliveries/${third}/resend`)).status).toBe(202);

    await expect
      .poll(() => progress(flowId, since), { timeout: 30_000, interval: 500 })
      .toMatchObject({ state: 'done', found: 3, resent: 2, skipped: 1, delivered: 1, stillFailing: 1 });
    const byDelivery = (deliveryId: string) =>
      receiver.received(inbox).filter((sent) => sent.receivedAt.getTime() >= batchStart && sent.headers['webhook-id'] === deliveryId);
    expect(byDelivery(third!)).toHaveLength(1);
    expect(byDelivery(first!)).toHaveLength(1);
    expect(byDelivery(second!).length).toBeGreaterThanOrEqual(1);
    expect(await statuses(flowId)).toMatchObject({ [first!]: 'delivered', [second!]: 'retrying', [third!]: 'delivered' });
  });

  it('continues as new on a long batch, its children all of the one parent', async () => {
    const inbox = `long-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 500 }]);
    const flowId = await newFlow(receiver.url(inbox));
    const since = new Date().toISOString();
    const failed = await failedDeliveries(flowId, 5);
    receiver.respondWith(inbox, [{ status: 200 }]);
    const workflowId = recoveryWorkflowId(flowId, since);
    const window = { flowId, since, until: new Date().toISOString() };
    const found = await withShop(db.app, shop.shopId, (tx) => countFailedDeliveries(tx, window));
    const request = { ...window, shopId: shop.shopId, perMinute: 60, found, about: { shopSlug: shop.slug, flowName: 'Long' } };
    // One child a tick, two a run: the batch continues as new twice, its cursor and counts carried along.
    const handle = await temporal.client.workflow.start(deliveryRecoveryWorkflow, {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ request: seal(TEST_WORKFLOW_SEAL_KEY, request, workflowId), childrenPerRun: 2 }],
    });
    expect(await handle.result()).toMatchObject({ found: 5, resent: 5, skipped: 0, done: true });
    await expect
      .poll(async () => (await temporal.client.workflow.count(`WorkflowId = '${workflowId}'`)).count, { timeout: 60_000 })
      .toBe(3);
    const resent = (await receiver.waitFor(inbox, 10)).slice(5);
    expect(resent.map((sent) => sent.headers['webhook-id']).sort()).toEqual([...failed].sort());
    for (const sent of resent) {
      const child = await temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, eventOf(sent.body))).describe();
      expect(child.parentExecution?.workflowId).toBe(workflowId);
    }
    await expect.poll(() => progress(flowId, since), { timeout: 60_000 }).toMatchObject({ delivered: 5, stillFailing: 0 });
  });

  it('refuses bad input with a problem and starts nothing; another shop’s flow is not found; a viewer reads but does not start', async () => {
    const flowId = await newFlow(receiver.url(`refused-${randomUUID()}`));
    const now = Date.now();
    const refused = [
      { since: new Date(now + 60 * 60_000).toISOString() },
      { since: new Date(now - 31 * 24 * 60 * 60_000).toISOString() },
      { since: new Date(now - 60_000).toISOString(), perMinute: 601 },
      { since: new Date(now - 60_000).toISOString(), perMinute: 0 },
      { since: 'yesterday' },
    ];
    for (const body of refused) await expectProblem(await admin('POST', `/flows/${flowId}/recovery`, body), 400, 'validation-failed');
    await expectProblem(await admin('GET', `/flows/${flowId}/recovery`), 404, 'not-found');

    const other = await createShopFixture(db.app);
    const foreign = await withShop(db.app, other.shopId, (tx) =>
      createFlow(
        tx,
        other.shopId,
        { name: 'Theirs', eventType: 'product.updated', url: receiver.url('theirs') },
        other.ownerId,
        testSecretsKey,
      ),
    );
    const body = { since: new Date(now - 60_000).toISOString() };
    await expectProblem(await admin('POST', `/flows/${foreign.flowId}/recovery`, body), 404, 'not-found');
    await expectProblem(await admin('GET', `/flows/${foreign.flowId}/recovery`), 404, 'not-found');

    await expectProblem(await viewer('POST', `/flows/${flowId}/recovery`, body), 403, 'insufficient-permission');
    expect((await startBatch(flowId, body)).found).toBe(0);
    expect((await viewer('GET', `/flows/${flowId}/recovery`)).status).toBe(200);
  });
});

describe("a shop's share of recovery", () => {
  it('runs one batch per flow, three per shop, at a pace within the shop’s, and only for a flow that is on', async () => {
    const since = new Date().toISOString();
    const flows = [];
    for (let index = 0; index < 4; index += 1) {
      const flowId = await newFlow('https://127.0.0.1:9/unreachable');
      await failedDeliveries(flowId, 2);
      flows.push(flowId);
    }
    const [a, b, c, d] = flows as [string, string, string, string];
    const started: string[] = [];
    try {
      // An off flow's address may be aimed anywhere first: none of its deliveries is resent.
      expect((await admin('POST', `/flows/${d}/state`, { state: 'off' })).status).toBe(200);
      const off = await expectProblem(await admin('POST', `/flows/${d}/recovery`, { since, perMinute: 1 }), 409, 'conflict');
      expect(off.detail).toMatch(/not on/);

      // One a minute: each batch waits a minute after its first resend, so it is running throughout.
      const first = await startBatch(a, { since, perMinute: 1 });
      started.push(first.workflowId);
      const otherSince = await expectProblem(
        await admin('POST', `/flows/${a}/recovery`, { since: new Date(Date.parse(since) - 1).toISOString(), perMinute: 1 }),
        409,
        'conflict',
      );
      expect(otherSince.workflowId).toBe(first.workflowId);
      expect(await startBatch(a, { since, perMinute: 1 })).toMatchObject({ joined: true, workflowId: first.workflowId });

      started.push((await startBatch(b, { since, perMinute: 1 })).workflowId);
      // The shop's two running batches leave 598 a minute.
      const tooFast = await expectProblem(await admin('POST', `/flows/${c}/recovery`, { since, perMinute: 599 }), 409, 'conflict');
      expect(tooFast.errors).toEqual([{ path: 'perMinute', message: "at most 598 while the shop's other resends run" }]);
      started.push((await startBatch(c, { since, perMinute: 1 })).workflowId);

      expect((await admin('POST', `/flows/${d}/state`, { state: 'on' })).status).toBe(200);
      const fourth = await expectProblem(await admin('POST', `/flows/${d}/recovery`, { since, perMinute: 1 }), 409, 'conflict');
      expect(new Set(fourth.workflowIds as string[])).toEqual(new Set(started));

      // A batch ended (here by an operator) no longer counts.
      await temporal.client.workflow.getHandle(first.workflowId).terminate('test: ended by an operator');
      started.push((await startBatch(d, { since, perMinute: 1 })).workflowId);
    } finally {
      for (const workflowId of started)
        await temporal.client.workflow
          .getHandle(workflowId)
          .terminate('test: done')
          .catch(() => undefined);
    }
  });
});

/** The event id of a sent envelope. */
function eventOf(body: string): string {
  return (JSON.parse(body) as { id: string }).id;
}
