import { randomUUID } from 'node:crypto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { useSuite } from '../support/suite.js';
import { type FlowInput } from '../../domain/flows/flows.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { deliveryOutcome, deliveryWorkflowId } from '../../workflows/deliveries/delivery-starter.js';
import type { DeliveryResult } from '../../workflows/deliveries/delivery-workflow.js';
import { envelopeId } from '../support/deliveries.js';

// The production schedule waits 5 s, then 5 min…; this suite's relay asks for 300 ms steps.
const { db, temporal, receiver, shop, request } = useSuite({
  api: true,
  shop: true,
  receiver: true,
  worker: true,
  relay: { retryDelaysMs: [300, 300, 300, 300] },
});
let key: string;

beforeAll(async () => {
  key = (
    await shop.newKey([
      'pos.products.read',
      'pos.products.create',
      'pos.products.update',
      'pos.customers.read',
      'pos.customers.create',
      'pos.customers.update',
    ])
  ).key;
});
const call = (method: string, path: string, body: unknown) => request(method, path, { key, body });

async function flow(input: Partial<FlowInput> & { inbox: string }) {
  return shop.newFlow({ name: 'E2E', eventType: 'product.updated', url: receiver.url(input.inbox), state: 'on', ...input });
}

/**
 * Waits until the relay has taken every event off the outbox queue: from then on every delivery
 * workflow these events will ever have is started, so "no workflow" means "nothing will be sent".
 */
async function outboxDrained(): Promise<void> {
  await expect
    .poll(async () => (await db.admin<{ count: number }[]>`select count(*)::int as count from event_queue`)[0]!.count, {
      timeout: 15_000,
      interval: 100,
    })
    .toBe(0);
}

/** The delivery workflow of `eventId` to `flowId`: its status name, or `none` when it was never started. */
async function deliveryState(flowId: string, eventId: string): Promise<string> {
  try {
    return (await temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, eventId)).describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'none';
    throw error;
  }
}

const deliveryResult = (flowId: string, eventId: string): Promise<DeliveryResult> =>
  deliveryOutcome(temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, eventId)));

const eventIdOf = (body: string) => (JSON.parse(body) as { id: string }).id;

const httpEnabled = async (flowId: string) =>
  (await withShop(db.app, shop.shopId, (tx) => tx<{ httpEnabled: boolean }[]>`select http_enabled from flows where id = ${flowId}`))[0]!
    .httpEnabled;

describe('from the Open API to a signed webhook', () => {
  it('delivers a product change to every flow: same event id, own webhook-id each, signed; none to a flow lacking pos.products.read', async () => {
    const [first, second, blind] = [randomUUID(), randomUUID(), randomUUID()];
    const flowA = await flow({ inbox: first });
    const flowB = await flow({ inbox: second });
    const blindFlow = await flow({ inbox: blind, permissions: ['pos.customers.read'] });
    const created = (await (await call('POST', '/products', { name: 'Áo khoác', variants: [{ price: '300000' }] })).json()) as {
      id: string;
      variants: { id: string }[];
    };
    expect((await call('PATCH', `/products/${created.id}`, { variants: [{ id: created.variants[0]!.id, price: '280000' }] })).status).toBe(
      200,
    );

    const [[atA], [atB]] = await Promise.all([receiver.waitFor(first, 1), receiver.waitFor(second, 1)]);
    const envelope = JSON.parse(atA!.body) as {
      id: string;
      type: string;
      changes: unknown;
      data: { id: string; variants: { price: string }[] };
    };
    expect(envelope).toMatchObject({
      type: 'product.updated',
      changes: { fields: ['variants.price'] },
      data: { id: created.id, variants: [{ price: '280000' }] },
    });
    expect((JSON.parse(atB!.body) as { id: string }).id).toBe(envelope.id);
    expect(atA!.headers['webhook-id']).not.toBe(atB!.headers['webhook-id']);
    expect(new Webhook(flowA.secret).verify(atA!.body, atA!.headers as Record<string, string>)).toBeTruthy();
    expect(new Webhook(flowB.secret).verify(atB!.body, atB!.headers as Record<string, string>)).toBeTruthy();
    // Once the relay has handled the event, the blind flow has no delivery workflow: nothing can arrive later.
    await outboxDrained();
    expect(await deliveryState(flowA.flowId, envelope.id)).not.toBe('none');
    expect(await deliveryState(blindFlow.flowId, envelope.id)).toBe('none');
    expect(receiver.received(blind)).toHaveLength(0);
  });

  it('retries a receiver failing with 500 three times, then 200: four attempts with one webhook-id', async () => {
    const inbox = randomUUID();
    receiver.respondWith(inbox, [{ status: 500 }, { status: 500 }, { status: 500 }, { status: 200 }]);
    const { flowId } = await flow({ inbox, eventType: 'customer.created' });
    expect((await call('POST', '/customers', { name: 'Retry Me' })).status).toBe(201);
    const requests = await receiver.waitFor(inbox, 4);
    // The delivery is over (delivered at the fourth attempt), so no late attempt is still to come.
    const result = await deliveryResult(flowId, eventIdOf(requests[0]!.body));
    expect({ status: result.status, codes: result.attempts.map((attempt) => attempt.statusCode) }).toEqual({
      status: 'delivered',
      codes: [500, 500, 500, 200],
    });
    expect(receiver.received(inbox)).toHaveLength(4);
    expect(new Set(requests.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(new Set(requests.map(envelopeId)).size).toBe(1);
  });

  it('switches the flow’s HTTP-send block off at 410 Gone, and sends nothing more', async () => {
    const inbox = randomUUID();
    receiver.respondWith(inbox, [{ status: 410 }]);
    const { flowId } = await flow({ inbox, eventType: 'customer.created' });
    expect(await httpEnabled(flowId)).toBe(true);
    expect((await call('POST', '/customers', { name: 'Gone 1' })).status).toBe(201);
    const [first] = await receiver.waitFor(inbox, 1);
    // The delivery ends at the 410 (no retry), having switched the HTTP-send block off.
    const result = await deliveryResult(flowId, eventIdOf(first!.body));
    expect({ status: result.status, codes: result.attempts.map((attempt) => attempt.statusCode) }).toEqual({
      status: 'gone',
      codes: [410],
    });
    expect(await httpEnabled(flowId)).toBe(false);

    const second = (await (await call('POST', '/customers', { name: 'Gone 2' })).json()) as { id: string };
    const [secondEvent] = await db.admin<
      { id: string }[]
    >`select id from events where resource_id = ${second.id} and type = 'customer.created'`;
    // Once the relay has handled the second event, it has no delivery to this flow: nothing can arrive later.
    await outboxDrained();
    expect(await deliveryState(flowId, secondEvent!.id)).toBe('none');
    expect(receiver.received(inbox)).toHaveLength(1);
  });
});
