import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { testEnv } from '../support/environment.js';
import { useSuite } from '../support/suite.js';
import { deliveryIdFor, setFlowState, type FlowInput } from '../../domain/flows/flows.js';
import { claimQueuedEvents, newEventId, writeEvent } from '../../domain/events/outbox.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { OutboxRelay, type RelayOptions } from '../../workflows/deliveries/delivery-relay.js';
import { deliveryWorkflowId, startDelivery } from '../../workflows/deliveries/delivery-starter.js';
import { testTemporalClient } from '../support/temporal.js';
import { envelopeId, whenEventsArrived } from '../support/deliveries.js';

const { db, temporal, receiver, shop } = useSuite({ shop: true, receiver: true, worker: true });
let relays: OutboxRelay[];
let connection: Connection;

beforeAll(async () => {
  connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  const client = testTemporalClient(connection);
  // Two relays on one queue, as when several run at once.
  relays = [0, 1].map(() => new OutboxRelay({ sql: db.app, deliveries: { ...temporal.deliveries, client }, pollIntervalMs: 200 }));
  await Promise.all(relays.map((relay) => relay.start()));
});
afterAll(async () => {
  await Promise.all((relays ?? []).map((relay) => relay.stop()));
  await connection?.close();
});

async function flow(input: Partial<FlowInput> & { inbox: string }) {
  return shop.newFlow({ name: 'Flow', eventType: 'product.updated', url: receiver.url(input.inbox), state: 'on', ...input });
}

function productEvent(name = 'Áo thun') {
  return withShop(db.app, shop.shopId, (tx) =>
    writeEvent(tx, {
      shopId: shop.shopId,
      type: 'product.updated',
      resourceId: randomUUID(),
      data: { id: randomUUID(), name },
      changes: { fields: ['name'] },
    }),
  );
}

const queueLength = async () => (await db.admin<{ count: number }[]>`select count(*)::int as count from event_queue`)[0]!.count;
const unclaimed = async () =>
  (await db.admin<{ count: number }[]>`select count(*)::int as count from event_queue where claimed_until is null`)[0]!.count;

/** A backlog of `count` events of `shopId` in one transaction, through the outbox, of a type no flow of the suite listens to. */
async function backlog(shopId: string, count: number): Promise<string[]> {
  return withShop(db.app, shopId, async (tx) => {
    const ids: string[] = [];
    for (let index = 0; index < count; index += 1) {
      ids.push(await writeEvent(tx, { shopId, type: 'customer.created', resourceId: randomUUID(), data: { id: randomUUID() } }));
    }
    return ids;
  });
}

/**
 * Two new shops, a slow one and a quick one, each with a flow on `product.updated` to an inbox of its
 * own; the suite's relays stopped and the queue emptied first.
 */
async function twoShopsWithFlows() {
  await Promise.all(relays.map((relay) => relay.stop()));
  await db.admin`delete from event_queue`;
  const [slow, quick] = [await createShopFixture(db.app), await createShopFixture(db.app)];
  const [slowInbox, quickInbox] = [randomUUID(), randomUUID()];
  const flowOf = (owner: ShopFixture, inbox: string) =>
    owner.newFlow({ name: 'Flow', eventType: 'product.updated', url: receiver.url(inbox), state: 'on' });
  const { flowId: slowFlow } = await flowOf(slow, slowInbox);
  await flowOf(quick, quickInbox);
  return { slow, quick, slowInbox, quickInbox, slowFlow };
}

/** A `product.updated` event of `shopId`, through the outbox. */
function productEventOf(shopId: string): Promise<string> {
  return withShop(db.app, shopId, (tx) =>
    writeEvent(tx, {
      shopId,
      type: 'product.updated',
      resourceId: randomUUID(),
      data: { id: randomUUID() },
      changes: { fields: ['name'] },
    }),
  );
}

/** A relay starting deliveries eagerly on the suite's worker (a client on its connection), alone on the outbox: the two relays stop. */
async function startEagerRelayAlone(options: Partial<RelayOptions> = {}): Promise<OutboxRelay> {
  await Promise.all(relays.map((relay) => relay.stop()));
  const eagerRelay = new OutboxRelay({
    sql: db.app,
    deliveries: { ...temporal.deliveries, client: testTemporalClient(temporal.nativeConnection) },
    pollIntervalMs: 200,
    eagerStart: true,
    ...options,
  });
  await eagerRelay.start();
  return eagerRelay;
}

describe('outbox relay', () => {
  // First in the file: eager start needs a free workflow-task slot on the worker, which the busier tests below can fill for a while.
  it('starts a delivery eagerly on the worker whose connection the relay shares, once', async () => {
    const inbox = randomUUID();
    const { flowId } = await flow({ inbox, state: 'draft' });
    const eventId = newEventId();
    const input = {
      shopId: shop.shopId,
      flowId,
      eventId,
      eventType: 'product.updated',
      deliveryId: deliveryIdFor(flowId, eventId),
      url: receiver.url(inbox),
      payload: '{"id":"eager"}',
    };
    const shared = { ...temporal.deliveries, client: testTemporalClient(temporal.nativeConnection) };
    expect(await startDelivery(shared, input, { eagerStart: true })).toBe('started-eagerly');
    const [request] = await receiver.waitFor(inbox, 1);
    expect(request!.body).toBe('{"id":"eager"}');
    // A relay that crashed before dequeuing starts it again after it closed: nothing is sent twice.
    expect(await temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, eventId)).result()).toMatchObject({ status: 'delivered' });
    expect(await startDelivery(shared, input, { eagerStart: true })).toBe('already-started');
    // Without eager start the same call goes through task matching.
    const queuedId = newEventId();
    expect(await startDelivery(temporal.deliveries, { ...input, eventId: queuedId, deliveryId: deliveryIdFor(flowId, queuedId) })).toBe(
      'started',
    );
    await receiver.waitFor(inbox, 2);
    await temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, queuedId)).result();
    expect(receiver.received(inbox)).toHaveLength(2);
  });

  it('delivers an event to every matching flow: one envelope id, one webhook-id per flow, signed', async () => {
    const [inboxA, inboxB] = [randomUUID(), randomUUID()];
    const [flowA, flowB] = [await flow({ inbox: inboxA }), await flow({ inbox: inboxB })];
    const eventId = await productEvent('Quần jean');
    const [[atA], [atB]] = await Promise.all([receiver.waitFor(inboxA, 1), receiver.waitFor(inboxB, 1)]);

    const envelopeA = JSON.parse(atA!.body) as Record<string, unknown>;
    expect(envelopeA).toEqual({
      id: eventId,
      type: 'product.updated',
      apiVersion: 'v1',
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      shop: { id: shop.shopId, slug: shop.slug },
      changes: { fields: ['name'] },
      data: { id: expect.any(String), name: 'Quần jean' },
    });
    expect(JSON.parse(atB!.body)).toEqual(envelopeA);
    expect(atA!.headers['webhook-id']).toBe(deliveryIdFor(flowA.flowId, eventId));
    expect(atB!.headers['webhook-id']).toBe(deliveryIdFor(flowB.flowId, eventId));
    expect(atA!.headers['webhook-id']).not.toBe(atB!.headers['webhook-id']);
    expect(new Webhook(flowA.secret).verify(atA!.body, atA!.headers as Record<string, string>)).toBeTruthy();
    expect(() => new Webhook(flowB.secret).verify(atA!.body, atA!.headers as Record<string, string>)).toThrow();
  });

  it('sends nothing to a flow whose account lacks the read permission, or that is off', async () => {
    const [allowed, lacking, off] = [randomUUID(), randomUUID(), randomUUID()];
    await flow({ inbox: allowed });
    await flow({ inbox: lacking, permissions: ['pos.orders.read'] });
    const switchedOff = await flow({ inbox: off });
    await withShop(db.app, shop.shopId, (tx) => setFlowState(tx, switchedOff.flowId, 'off', null));
    await productEvent();
    await receiver.waitFor(allowed, 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received(lacking)).toHaveLength(0);
    expect(receiver.received(off)).toHaveLength(0);
  });

  it('does not send events created before the flow was switched on', async () => {
    const inbox = randomUUID();
    const later = await flow({ inbox, state: 'draft' });
    const before = await productEvent('before');
    await withShop(db.app, shop.shopId, (tx) => setFlowState(tx, later.flowId, 'on', null));
    const after = await productEvent('after');
    await receiver.waitFor(inbox, 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sent = receiver.received(inbox).map(envelopeId);
    expect(sent).toEqual([after]);
    expect(sent).not.toContain(before);
  });

  // What is checked is that nothing is lost or doubled, not how fast: a loaded machine gets two minutes.
  it('shares the work between two relays without double deliveries, and empties the queue', { timeout: 150_000 }, async () => {
    const inbox = randomUUID();
    const { flowId } = await flow({ inbox });
    const ids = await Promise.all(Array.from({ length: 60 }, (_, index) => productEvent(`item ${index}`)));
    // Every event arrives, each as one delivery (one webhook-id). A delivery's own second attempt, after
    // a first that a stalled machine let time out, is the same delivery, which its receiver dedupes.
    await whenEventsArrived(receiver, inbox, ids);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const byEvent = Map.groupBy(receiver.received(inbox), envelopeId);
    expect(new Set(byEvent.keys())).toEqual(new Set(ids));
    for (const requests of byEvent.values()) expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(receiver.received(inbox).map((request) => request.headers['webhook-id'])).size).toBe(60);
    // Each delivery's workflow started once: one run per event, whichever relay claimed it.
    await expect
      .poll(async () => (await temporal.client.workflow.count(`WorkflowType = 'deliveryWorkflow' AND FlowId = '${flowId}'`)).count)
      .toBe(60);
    await expect.poll(queueLength).toBe(0);
  });

  it("relays through a client on its worker's connection with eager start", async () => {
    const inbox = randomUUID();
    await flow({ inbox });
    const eagerRelay = await startEagerRelayAlone();
    try {
      const ids = await Promise.all(Array.from({ length: 10 }, (_, index) => productEvent(`eager ${index}`)));
      expect(new Set((await whenEventsArrived(receiver, inbox, ids)).keys())).toEqual(new Set(ids));
      // An eager start may deliver before the relay's transaction that dequeues the events commits.
      await expect.poll(queueLength).toBe(0);
    } finally {
      await eagerRelay.stop();
    }
  });

  it('leaves events in the outbox while its worker has no room, and relays them once it has', async () => {
    const inbox = randomUUID();
    await flow({ inbox });
    let room = 0;
    const eagerRelay = await startEagerRelayAlone({ room: () => room });
    try {
      const ids = await Promise.all(Array.from({ length: 5 }, (_, index) => productEvent(`waiting ${index}`)));
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(receiver.received(inbox)).toHaveLength(0);
      expect(await queueLength()).toBe(5);
      room = 2;
      expect(new Set((await whenEventsArrived(receiver, inbox, ids)).keys())).toEqual(new Set(ids));
      await expect.poll(queueLength).toBe(0);
    } finally {
      await eagerRelay.stop();
    }
  });

  it('claims half as many events after a start its worker had no slot for', async () => {
    await flow({ inbox: randomUUID() });
    // A task queue no worker on this connection serves: the server queues each task instead of handing it over.
    const taskQueue = `no-worker-${randomUUID()}`;
    const client = testTemporalClient(temporal.nativeConnection);
    const spillingRelay = new OutboxRelay({ sql: db.app, deliveries: { ...temporal.deliveries, client, taskQueue }, eagerStart: true });
    await Promise.all(relays.map((relay) => relay.stop()));
    const ids = await Promise.all(Array.from({ length: 3 }, (_, index) => productEvent(`spilled ${index}`)));
    try {
      expect(spillingRelay.claimLimit()).toBe(100);
      expect(await spillingRelay.relayBatch()).toBe(3);
      expect(spillingRelay.claimLimit()).toBe(50);
    } finally {
      const flowIds = await db.admin<{ id: string }[]>`select id from flows where shop_id = ${shop.shopId} and state = 'on'`;
      for (const { id: flowId } of flowIds)
        for (const eventId of ids)
          await client.workflow
            .getHandle(deliveryWorkflowId(flowId, eventId))
            .terminate()
            .catch(() => {});
    }
  });

  it('puts a batch back on the queue when a start fails, and relays it on the next try', async () => {
    const inbox = randomUUID();
    await flow({ inbox });
    await Promise.all(relays.map((relay) => relay.stop()));
    const ids = await Promise.all(Array.from({ length: 2 }, (_, index) => productEvent(`put back ${index}`)));
    // A namespace the server does not have: every start is refused.
    const refused = new OutboxRelay({
      sql: db.app,
      deliveries: { ...temporal.deliveries, client: testTemporalClient(connection, `missing-${randomUUID()}`) },
    });
    await expect(refused.relayBatch()).rejects.toThrow();
    expect(await queueLength()).toBe(2);
    expect(receiver.received(inbox)).toHaveLength(0);
    const working = new OutboxRelay({ sql: db.app, deliveries: { ...temporal.deliveries, client: testTemporalClient(connection) } });
    expect(await working.relayBatch()).toBe(2);
    expect(await queueLength()).toBe(0);
    expect(new Set((await whenEventsArrived(receiver, inbox, ids)).keys())).toEqual(new Set(ids));
  });

  it("serves every shop in each batch: another shop's first event starts in the first batch, behind no backlog", async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await db.admin`delete from event_queue`;
    const other = await createShopFixture(db.app);
    const inbox = randomUUID();
    await other.newFlow({ name: 'Flow', eventType: 'product.updated', url: receiver.url(inbox), state: 'on' });
    const flooding = await backlog(shop.shopId, 300);
    const waiting = await withShop(db.app, other.shopId, (tx) =>
      writeEvent(tx, {
        shopId: other.shopId,
        type: 'product.updated',
        resourceId: randomUUID(),
        data: { id: randomUUID() },
        changes: { fields: ['name'] },
      }),
    );
    const relay = new OutboxRelay({ sql: db.app, deliveries: { ...temporal.deliveries, client: testTemporalClient(connection) } });
    // Ten events for two shops: five each at most, and the other shop has one.
    expect(await relay.relayBatch(10)).toBe(6);
    const left = await db.admin<{ eventId: string }[]>`select event_id from event_queue`;
    expect(left.map((row) => row.eventId)).not.toContain(waiting);
    expect(new Set(left.map((row) => row.eventId))).toEqual(new Set(flooding.slice(5)));
    const [request] = await receiver.waitFor(inbox, 1);
    expect((JSON.parse(request!.body) as { id: string }).id).toBe(waiting);
    await db.admin`delete from event_queue`;
  });

  it('claims at most its batch whatever plan the statistics lead PostgreSQL to, leaving the rest queued', async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await db.admin`delete from event_queue`;
    const other = await createShopFixture(db.app);
    // Statistics of an empty queue (autovacuum between tests), then a backlog: the planner expects one row.
    await db.admin`analyze event_queue`;
    const [flooding, single] = [await backlog(shop.shopId, 300), await backlog(other.shopId, 1)];
    // The plan that rescans the claim for each row deleted (a nested-loop semi join), and the default one.
    const plans = [
      '',
      'set local enable_hashjoin = off; set local enable_mergejoin = off; set local enable_hashagg = off; set local enable_sort = off',
    ];
    for (const planner of plans) {
      const claimed = await db.app
        .begin(async (tx) => {
          if (planner) await tx.unsafe(planner);
          const events = (await claimQueuedEvents(tx, 10)).map((event) => event.eventId);
          throw Object.assign(new Error('rolled back'), { events });
        })
        .catch((error: { events: string[] }) => error.events);
      expect(claimed, planner || 'default plan').toHaveLength(6);
      expect(claimed).toEqual(expect.arrayContaining([...flooding.slice(0, 5), ...single]));
    }
    expect(await queueLength()).toBe(301);
    await db.admin`delete from event_queue`;
  });

  it('claims per shop past the rows another relay holds, so two claims at once never overlap', async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await db.admin`delete from event_queue`;
    const other = await createShopFixture(db.app);
    const [first, second] = [await backlog(shop.shopId, 8), await backlog(other.shopId, 8)];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let claimed!: (events: string[]) => void;
    const firstClaim = new Promise<string[]>((resolve) => (claimed = resolve));
    const holding = db.app.begin(async (tx) => {
      claimed((await claimQueuedEvents(tx, 6)).map((event) => event.eventId));
      await held;
      throw new Error('rolled back');
    });
    const byFirst = await firstClaim;
    const bySecond = await db.app.begin(async (tx) => (await claimQueuedEvents(tx, 6)).map((event) => event.eventId));
    release();
    await expect(holding).rejects.toThrow('rolled back');
    // Each claim: the three oldest free events of each shop.
    expect(byFirst).toEqual(expect.arrayContaining([...first!.slice(0, 3), ...second!.slice(0, 3)]));
    expect(bySecond).toEqual(expect.arrayContaining([...first!.slice(3, 6), ...second!.slice(3, 6)]));
    expect([byFirst.length, bySecond.length]).toEqual([6, 6]);
    // The first claim rolled back: its events can be claimed again; the second's are held for a while.
    expect(await unclaimed()).toBe(10);
    await db.admin`delete from event_queue`;
  });

  it("starts a shop's event without waiting for another shop's read in the same batch", async () => {
    const { slow, quick, slowInbox, quickInbox } = await twoShopsWithFlows();
    const [slowEvent, quickEvent] = [await productEventOf(slow.shopId), await productEventOf(quick.shopId)];
    const relay = new OutboxRelay({ sql: db.app, deliveries: { ...temporal.deliveries, client: testTemporalClient(connection) } });
    // The slow shop's read hangs until released, as a product of thousands of variants read on a busy database.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const reader = relay as unknown as { readShopEvents: (shopId: string, events: unknown[]) => Promise<unknown> };
    const read = reader.readShopEvents.bind(relay);
    reader.readShopEvents = async (shopId, events) => {
      if (shopId === slow.shopId) await released;
      return read(shopId, events);
    };
    try {
      // One batch holds both shops' events; the quick shop's is delivered while the slow shop's read hangs.
      const batch = relay.relayBatch(10);
      const [request] = await receiver.waitFor(quickInbox, 1);
      expect((JSON.parse(request!.body) as { id: string }).id).toBe(quickEvent);
      expect(receiver.received(slowInbox)).toHaveLength(0);
      release();
      expect(await batch).toBe(2);
      const [slowRequest] = await receiver.waitFor(slowInbox, 1);
      expect((JSON.parse(slowRequest!.body) as { id: string }).id).toBe(slowEvent);
      expect(await queueLength()).toBe(0);
    } finally {
      release();
    }
  });

  it("claims another shop's event at once while a batch is still starting its deliveries", async () => {
    const { slow, quick, slowInbox, quickInbox, slowFlow } = await twoShopsWithFlows();
    // The slow shop's starts hang until released, as when the engine is slow to take a burst.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const client = testTemporalClient(connection);
    const workflow = Object.create(client.workflow) as typeof client.workflow;
    workflow.start = (async (...args: Parameters<typeof client.workflow.start>) => {
      if (args[1].workflowId.includes(slowFlow)) await released;
      return client.workflow.start(...args);
    }) as typeof client.workflow.start;
    const relay = new OutboxRelay({
      sql: db.app,
      deliveries: { ...temporal.deliveries, client: Object.assign(Object.create(client) as typeof client, { workflow }) },
      pollIntervalMs: 200,
    });
    await relay.start();
    try {
      const slowEvents = await Promise.all([productEventOf(slow.shopId), productEventOf(slow.shopId)]);
      await expect.poll(unclaimed).toBe(0);
      const quickEvent = await productEventOf(quick.shopId);
      const [request] = await receiver.waitFor(quickInbox, 1);
      expect((JSON.parse(request!.body) as { id: string }).id).toBe(quickEvent);
      expect(receiver.received(slowInbox)).toHaveLength(0);
      release();
      const slowRequests = await receiver.waitFor(slowInbox, 2);
      expect(new Set(slowRequests.map((slowRequest) => (JSON.parse(slowRequest.body) as { id: string }).id))).toEqual(new Set(slowEvents));
      await expect.poll(queueLength).toBe(0);
    } finally {
      release();
      await relay.stop();
    }
  });
});
