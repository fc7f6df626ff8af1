import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { writeEvent } from '../../domain/events/outbox.js';
import { EVENT_EXAMPLES } from '../../domain/flows/event-samples.js';
import { deliveryIdFor } from '../../domain/flows/flows.js';
import type { EventType } from '../../domain/events/index.js';
import { deliveryWorkflowId } from '../../workflows/deliveries/delivery-starter.js';

/** Issue 32: a Trigger of several event types (one address, one secret) and a Condition block, on the real relay and engine. */
const { db, api, receiver, shop, temporal } = useSuite({ api: true, shop: true, receiver: true, worker: true, relay: true });
let admin: AdminRequest;

beforeAll(async () => {
  ({ admin } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
});

interface SavedFlow {
  id: string;
  eventType: string;
  eventTypes: string[];
  condition: unknown;
  permissions: string[];
}

async function newFlow(body: Record<string, unknown>): Promise<{ flow: SavedFlow; secret: string }> {
  const response = await admin('POST', '/flows', { name: 'Flow', state: 'on', ...body });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { flow: SavedFlow; secret: string };
}

/** An event of the shop through the outbox, its `data` the catalogue's example with `data` changes. */
function emit(type: EventType, data: Record<string, unknown> = {}, changes = EVENT_EXAMPLES[type].changes): Promise<string> {
  return withShop(db.app, shop.shopId, (tx) =>
    writeEvent(tx, {
      shopId: shop.shopId,
      type,
      resourceId: randomUUID(),
      data: { ...EVENT_EXAMPLES[type].data, id: randomUUID(), ...data },
      ...(changes ? { changes } : {}),
    }),
  );
}

/** Waits until the relay has taken every queued event (each matched to its flows, or skipped). */
async function relayed(): Promise<void> {
  for (let tries = 0; tries < 100; tries += 1) {
    const [{ queued }] = (await db.admin`select count(*)::int as queued from event_queue`) as unknown as [{ queued: number }];
    if (queued === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the relay did not take the queued events');
}

/** A flow's skip notes in event order: the relay starts batches side by side, so notes land in no set order. */
const skippedRuns = (flowId: string) =>
  db.admin<{ details: { eventId: string; eventType: string; reason: string } }[]>`
    select details from shop_log where action = 'flow.run_skipped' and subject_id = ${flowId}
    order by details->>'eventId'`;

/** No delivery workflow ever started for the event and flow. */
async function expectNoRun(flowId: string, eventId: string): Promise<void> {
  await expect(temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, eventId)).describe()).rejects.toThrow(/not found/i);
}

const deliveriesOf = (flowId: string) =>
  db.admin<{ eventId: string }[]>`select event_id from deliveries where flow_id = ${flowId} order by created_at`;

describe('a Trigger of several event types', () => {
  it('sends each event of its types to its one address, signed by its one secret, with the same webhook-id as a flow of one type', async () => {
    const { flow, secret } = await newFlow({
      eventTypes: ['order.created', 'order.status_changed', 'customer.created'],
      url: receiver.url('several'),
    });
    expect(flow).toMatchObject({ eventType: 'order.created', eventTypes: ['order.created', 'order.status_changed', 'customer.created'] });
    // The account's default: every type's read permissions.
    expect(flow.permissions).toEqual(['pos.customers.read', 'pos.orders.read']);

    const created = await emit('order.created');
    const changed = await emit('order.status_changed');
    await emit('product.created');
    const customer = await emit('customer.created');
    const received = await receiver.waitFor('several', 3);
    await relayed();
    expect(receiver.received('several')).toHaveLength(3);

    const verifier = new Webhook(secret);
    const byEvent = new Map(
      received.map((request) => [(verifier.verify(request.body, request.headers as Record<string, string>) as { id: string }).id, request]),
    );
    expect([...byEvent.keys()].sort()).toEqual([created, changed, customer].sort());
    for (const [eventId, request] of byEvent) expect(request.headers['webhook-id']).toBe(deliveryIdFor(flow.id, eventId));
    await expect
      .poll(async () => (await deliveriesOf(flow.id)).map((row) => row.eventId).sort())
      .toEqual([created, changed, customer].sort());
  });

  it('keeps one-type flows as they were: eventType in and out, edited by eventType or eventTypes', async () => {
    const { flow } = await newFlow({ eventType: 'product.updated', url: receiver.url('one'), state: 'draft' });
    expect(flow).toMatchObject({ eventType: 'product.updated', eventTypes: ['product.updated'], condition: null });
    const edited = await admin('PATCH', `/flows/${flow.id}`, { eventType: 'product.created' });
    expect(await edited.json()).toMatchObject({ eventType: 'product.created', eventTypes: ['product.created'] });
    const widened = await admin('PATCH', `/flows/${flow.id}`, { eventTypes: ['product.created', 'product.deleted', 'product.created'] });
    expect(await widened.json()).toMatchObject({ eventTypes: ['product.created', 'product.deleted'] });
  });

  it('refuses a list with an unknown type, a message type without its page, or eventType and eventTypes that disagree, and saves nothing', async () => {
    const url = receiver.url('refused');
    const before = ((await (await admin('GET', '/flows?limit=100')).json()) as { data: unknown[] }).data.length;
    const unknownType = await expectProblem(
      await admin('POST', '/flows', { name: 'x', eventTypes: ['order.created', 'order.shipped'], url }),
      400,
      'validation-failed',
    );
    expect(JSON.stringify(unknownType.errors)).toContain('eventTypes');
    await expectProblem(await admin('POST', '/flows', { name: 'x', eventTypes: [], url }), 400, 'validation-failed');
    await expectProblem(await admin('POST', '/flows', { name: 'x', url }), 400, 'validation-failed');
    const page = await expectProblem(
      await admin('POST', '/flows', { name: 'x', eventTypes: ['order.created', 'message.received'], url }),
      400,
      'validation-failed',
    );
    expect(page.errors).toEqual([expect.objectContaining({ path: 'pageId' })]);
    const both = await expectProblem(
      await admin('POST', '/flows', { name: 'x', eventType: 'order.created', eventTypes: ['order.updated'], url }),
      400,
      'validation-failed',
    );
    expect(both.errors).toEqual([expect.objectContaining({ path: 'eventType' })]);
    expect(((await (await admin('GET', '/flows?limit=100')).json()) as { data: unknown[] }).data).toHaveLength(before);
  });
});

const shippedOnFacebook = {
  match: 'all',
  rules: [
    { path: 'changes.status.to', operator: 'eq', value: 'shipped' },
    { path: 'data.salesChannelName', operator: 'eq', value: 'Facebook' },
  ],
};

describe('a Condition block', () => {
  it('delivers the events it lets through and skips the others before any delivery starts, noting each skip in the shop log', async () => {
    const { flow: shipped } = await newFlow({
      eventType: 'order.status_changed',
      condition: shippedOnFacebook,
      url: receiver.url('shipped'),
    });
    const { flow: large } = await newFlow({
      eventTypes: ['order.created', 'order.updated'],
      condition: { match: 'any', rules: [{ path: 'data.totalAmount', operator: 'gte', value: 1_000_000 }] },
      url: receiver.url('large'),
    });
    const toShipped = { fields: ['status'], status: { from: 'confirmed', to: 'shipped' } };

    const facebook = await emit('order.status_changed', { status: 'shipped', salesChannelName: 'Facebook' }, toShipped);
    const shopee = await emit('order.status_changed', { status: 'shipped', salesChannelName: 'Shopee' }, toShipped);
    const confirmed = await emit('order.status_changed', { salesChannelName: 'Facebook' });
    const big = await emit('order.created', { totalAmount: '1250000.00' });
    const small = await emit('order.created', { totalAmount: '999999.99' });
    await receiver.waitFor('shipped', 1);
    await receiver.waitFor('large', 1);
    await relayed();

    await expect.poll(async () => (await deliveriesOf(shipped.id)).map((row) => row.eventId)).toEqual([facebook]);
    await expect.poll(async () => (await deliveriesOf(large.id)).map((row) => row.eventId)).toEqual([big]);
    expect(receiver.received('shipped')).toHaveLength(1);
    expect(receiver.received('large')).toHaveLength(1);
    const reason = 'the condition did not hold';
    expect((await skippedRuns(shipped.id)).map((row) => row.details)).toEqual([
      { eventId: shopee, eventType: 'order.status_changed', reason },
      { eventId: confirmed, eventType: 'order.status_changed', reason },
    ]);
    expect((await skippedRuns(large.id)).map((row) => row.details)).toEqual([{ eventId: small, eventType: 'order.created', reason }]);
    for (const eventId of [shopee, confirmed]) await expectNoRun(shipped.id, eventId);
    await expectNoRun(large.id, small);
  });

  it('tests only what the flow may read: a rule on a field its account lacks never holds', async () => {
    const { flow } = await newFlow({
      eventType: 'order.created',
      permissions: ['pos.orders.read'],
      condition: { match: 'all', rules: [{ path: 'data.lines.productName', operator: 'exists' }] },
      url: receiver.url('blind'),
    });
    const event = await emit('order.created');
    await relayed();
    expect(await deliveriesOf(flow.id)).toEqual([]);
    expect((await skippedRuns(flow.id)).map((row) => row.details.eventId)).toEqual([event]);
  });

  it('refuses a rule on a field the event types do not have, or a comparison that does not fit the field, and keeps what was saved', async () => {
    const url = receiver.url('invalid');
    const unknownField = await expectProblem(
      await admin('POST', '/flows', {
        name: 'x',
        eventType: 'order.created',
        condition: {
          match: 'all',
          rules: [
            { path: 'data.totalAmount', operator: 'gt', value: 1 },
            { path: 'data.colour', operator: 'exists' },
          ],
        },
        url,
      }),
      400,
      'validation-failed',
    );
    expect(unknownField.errors).toEqual([expect.objectContaining({ path: 'condition.rules.1.path' })]);
    const ordered = await expectProblem(
      await admin('POST', '/flows', {
        name: 'x',
        eventType: 'order.created',
        condition: { match: 'all', rules: [{ path: 'data.billFullName', operator: 'gt', value: 5 }] },
        url,
      }),
      400,
      'validation-failed',
    );
    expect(ordered.errors).toEqual([expect.objectContaining({ path: 'condition.rules.0.operator' })]);
    // One past each limit the choices tell the builder: more rules, a longer list, a longer value.
    const { conditionLimits: limits } = (await (await admin('GET', '/choices')).json()) as {
      conditionLimits: { rules: number; values: number; valueLength: number };
    };
    expect(limits).toEqual({ rules: 10, values: 50, valueLength: 200 });
    const overLimits = [
      { match: 'any', rules: Array.from({ length: limits.rules + 1 }, () => ({ path: 'data.status', operator: 'exists' })) },
      {
        match: 'any',
        rules: [{ path: 'data.status', operator: 'in', value: Array.from({ length: limits.values + 1 }, (_, n) => `s${n}`) }],
      },
      { match: 'any', rules: [{ path: 'data.note', operator: 'contains', value: 'x'.repeat(limits.valueLength + 1) }] },
    ];
    for (const condition of overLimits)
      await expectProblem(
        await admin('POST', '/flows', { name: 'x', eventType: 'order.created', condition, url }),
        400,
        'validation-failed',
      );

    // Changing the types re-checks the saved condition: customers have no changes.status.
    const { flow } = await newFlow({ eventType: 'order.status_changed', condition: shippedOnFacebook, url, state: 'draft' });
    const moved = await expectProblem(
      await admin('PATCH', `/flows/${flow.id}`, { eventTypes: ['customer.created'] }),
      400,
      'validation-failed',
    );
    expect((moved.errors as { path: string }[]).map((error) => error.path)).toEqual(['condition.rules.0.path', 'condition.rules.1.path']);
    expect(await (await admin('GET', `/flows/${flow.id}`)).json()).toMatchObject({
      eventTypes: ['order.status_changed'],
      condition: shippedOnFacebook,
    });
    const cleared = await admin('PATCH', `/flows/${flow.id}`, { eventTypes: ['customer.created'], condition: null });
    expect(await cleared.json()).toMatchObject({ eventTypes: ['customer.created'], condition: null });
  });

  it("shows in a test-run whether the sample passes, rule by rule, for the builder's unsaved condition", async () => {
    const { flow } = await newFlow({ eventTypes: ['order.created', 'order.status_changed'], url: receiver.url('tried'), state: 'draft' });
    const run = async (body: Record<string, unknown>) => {
      const response = await admin('POST', `/flows/${flow.id}/test-run`, body);
      expect(response.status, await response.clone().text()).toBe(200);
      return ((await response.json()) as { condition: unknown; status: string }).condition;
    };
    expect(await run({})).toBeNull();
    // The example order: 480,000 ₫ from Facebook, its status changed from new to confirmed.
    expect(await run({ condition: shippedOnFacebook, eventType: 'order.status_changed' })).toEqual({ holds: false, rules: [false, true] });
    const confirmedAny = { ...shippedOnFacebook, match: 'any' };
    expect(await run({ condition: confirmedAny, eventType: 'order.status_changed' })).toEqual({ holds: true, rules: [false, true] });
    await expectProblem(
      await admin('POST', `/flows/${flow.id}/test-run`, { eventTypes: ['order.created'], eventType: 'order.status_changed' }),
      400,
      'validation-failed',
    );
  });

  it("lists in the choices what a condition may test in each type's events, with the comparisons that fit", async () => {
    const choices = (await (await admin('GET', '/choices')).json()) as {
      eventTypes: { type: string; conditionFields: { path: string; kind: string; list: boolean; operators: string[] }[] }[];
    };
    const fields = choices.eventTypes.find((entry) => entry.type === 'order.status_changed')!.conditionFields;
    expect(fields).toContainEqual(expect.objectContaining({ path: 'changes.status.to', kind: 'text', list: false }));
    expect(fields).toContainEqual(expect.objectContaining({ path: 'changes.fields', kind: 'text', list: true }));
    expect(fields.find((field) => field.path === 'data.totalAmount')).toMatchObject({
      kind: 'number',
      operators: expect.arrayContaining(['gte']),
    });
    expect(fields.find((field) => field.path === 'data.lines.variantCode')).toMatchObject({ list: true });
    const product = choices.eventTypes.find((entry) => entry.type === 'product.created')!.conditionFields;
    expect(product.some((field) => field.path.startsWith('data.variants.attributes'))).toBe(false);
    const customer = choices.eventTypes.find((entry) => entry.type === 'customer.created')!.conditionFields;
    expect(customer.some((field) => field.path.startsWith('changes.'))).toBe(false);
  });
});
