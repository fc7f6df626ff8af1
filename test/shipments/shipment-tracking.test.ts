import { randomBytes } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { withShop } from '../../domain/kernel/tenancy.js';
import { carrierConnection } from '../../domain/shipments/index.js';
import { trackingWorkflowId } from '../../workflows/shipments/shipment-workflows.js';
import { testSecretsKey } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { readyOrder, useBothCarriers } from './shipment-fixtures.js';

/**
 * Tracking: carrier callbacks over HTTP to the callback endpoint, signalled to each shipment's
 * tracking workflow, recorded once per real change; carrier B polled when its callbacks are lost.
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 2_000 } }, worker: { shipments: true }, shop: true });
const { db, shop, request } = suite;

const both = useBothCarriers(suite, 'Tracking', { callbackRetry: { attempts: 4, baseDelayMs: 50 } });

interface Shipment {
  id: string;
  orderId: string;
  trackingCode: string;
  status: string;
  pickedUpAt: string | null;
  events: { status: string | null; carrierStatus: string | null; occurredAt: string; description: string | null }[];
}

async function pushed(carrier: 'carrier_a' | 'carrier_b'): Promise<Shipment> {
  const { orderId } = await readyOrder(db, shop, both.shipping.warehouseId);
  const response = await request('POST', '/shipments', {
    key: both.key,
    body: { orderId, connectionId: both.shipping.connections[carrier] },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as Shipment;
}

const read = async (id: string) => (await (await request('GET', `/shipments/${id}`, { key: both.key })).json()) as Shipment;
const orderStatus = async (id: string) =>
  ((await (await request('GET', `/orders/${id}`, { key: both.key })).json()) as { status: string }).status;
const statusEvents = (id: string) =>
  db.admin<{ type: string; changes: { fields: string[]; status?: { from: string; to: string } } | null }[]>`
    select type, changes from events where resource_id = ${id} and type = 'shipment.status_changed' order by id`;

/** Waits until the shipment reads `status` (the callbacks travel and the workflow records them). */
async function until(id: string, status: string): Promise<Shipment> {
  let last: Shipment | undefined;
  await vi.waitFor(
    async () => {
      last = await read(id);
      expect(last.status).toBe(status);
    },
    { timeout: 20_000, interval: 100 },
  );
  return last!;
}

describe('tracking from carrier callbacks', () => {
  it('carrier A, a whole itinerary: each state once, milestones in time order, the order delivered, findable by ShipmentId', async () => {
    const shipment = await pushed('carrier_a');
    for (const step of ['picking', 'picked', 'storing', 'delivering', 'delivered'] as const) {
      both.carrierA.advance(shipment.trackingCode, step);
      if (step === 'picked') await until(shipment.id, 'delivering');
    }
    const delivered = await until(shipment.id, 'delivered');
    expect(delivered.events.map((event) => [event.carrierStatus, event.status])).toEqual([
      ['ready_to_pick', null],
      ['picking', null],
      ['picked', 'delivering'],
      ['storing', null],
      ['delivering', null],
      ['delivered', 'delivered'],
    ]);
    expect(delivered.pickedUpAt).not.toBeNull();
    expect((await statusEvents(shipment.id)).map((event) => event.changes?.status)).toEqual([
      { from: 'pending', to: 'delivering' },
      { from: 'delivering', to: 'delivered' },
    ]);
    expect(await orderStatus(shipment.orderId)).toBe('delivered');

    // An operator finds the shipment's one workflow, its push and its tracking, by its search attribute; it ended with the shipment.
    const tracking = suite.temporal.client.workflow.getHandle(trackingWorkflowId(shipment.id));
    await vi.waitFor(async () => expect((await tracking.describe()).status.name).toBe('COMPLETED'), { timeout: 10_000 });
    await vi.waitFor(
      async () => {
        const ids: string[] = [];
        for await (const execution of suite.temporal.client.workflow.list({ query: `ShipmentId = '${shipment.id}'` }))
          ids.push(execution.workflowId);
        expect(ids).toEqual([trackingWorkflowId(shipment.id)]);
      },
      { timeout: 10_000, interval: 250 },
    );
  });

  it('duplicated and reordered callbacks: one event per real change, the newest state kept', async () => {
    const shipment = await pushed('carrier_b');
    both.carrierB.callbacks.duplicateNext(3);
    for (const step of [12, 123, 3] as const) both.carrierB.advance(shipment.trackingCode, step);
    await until(shipment.id, 'delivering');
    // 4 (out for delivery) then 45 (the shipper's report) arrive newest first.
    both.carrierB.callbacks.reorderNext(2);
    both.carrierB.advance(shipment.trackingCode, 4);
    both.carrierB.advance(shipment.trackingCode, 45);
    await vi.waitFor(async () => expect((await read(shipment.id)).events.map((event) => event.carrierStatus)).toContain('4'), {
      timeout: 20_000,
    });
    const read1 = await read(shipment.id);
    expect(read1.status).toBe('delivering');
    const codes = read1.events.map((event) => event.carrierStatus);
    expect(codes).toEqual([...new Set(codes)]);
    expect(read1.events.map((event) => event.occurredAt)).toEqual([...read1.events.map((event) => event.occurredAt)].sort());
    both.carrierB.advance(shipment.trackingCode, 5);
    await until(shipment.id, 'delivered');
    expect((await statusEvents(shipment.id)).map((event) => event.changes?.status?.to)).toEqual(['delivering', 'delivered']);
  });

  it('carrier B, a partial delivery: partially_returned, then each return-leg step as changes.fields = ["events"]', async () => {
    const shipment = await pushed('carrier_b');
    for (const step of [12, 123, 3, 4] as const) both.carrierB.advance(shipment.trackingCode, step);
    await until(shipment.id, 'delivering');
    const { returnLeg } = both.carrierB.partialDelivery(shipment.trackingCode);
    await until(shipment.id, 'partially_returned');
    expect(await orderStatus(shipment.orderId)).toBe('partially_returned');
    for (const step of [21] as const) both.carrierB.advance(returnLeg.code, step);
    await vi.waitFor(
      async () => {
        const legEvents = (await statusEvents(shipment.id)).filter((event) => !event.changes?.status);
        expect(legEvents.length).toBeGreaterThanOrEqual(2);
      },
      { timeout: 20_000 },
    );
    const events = await statusEvents(shipment.id);
    expect(events.map((event) => event.changes)).toEqual([
      { fields: expect.arrayContaining(['status']), status: { from: 'pending', to: 'delivering' } },
      { fields: expect.arrayContaining(['status']), status: { from: 'delivering', to: 'partially_returned' } },
      { fields: ['events'] },
      { fields: ['events'] },
    ]);
    expect((await read(shipment.id)).status).toBe('partially_returned');
    const tracking = suite.temporal.client.workflow.getHandle(trackingWorkflowId(shipment.id));
    await vi.waitFor(async () => expect((await tracking.describe()).status.name).toBe('COMPLETED'), { timeout: 10_000 });
  });

  it('carrier B callbacks lost: the tracking asks the status endpoint after the silence', async () => {
    const shipment = await pushed('carrier_b');
    both.carrierB.callbacks.loseNext(4);
    for (const step of [12, 123, 3, 4] as const) both.carrierB.advance(shipment.trackingCode, step);
    const polled = await until(shipment.id, 'delivering');
    expect(polled.events.at(-1)).toMatchObject({
      carrierStatus: '4',
      status: 'delivering',
      description: "Read from the carrier's status endpoint",
    });
  });
});

describe('the callback endpoint', () => {
  const callback = (secret: string, body: unknown) =>
    fetch(`${suite.api.baseUrl}/platform/carriers/callbacks/${secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('an unknown secret is 404, a body not in the carrier’s shape 400, a shipment not ours 200 and nothing recorded', async () => {
    await expectProblem(await callback(randomBytes(32).toString('base64url'), { label_id: 'X', status_id: 3 }), 404, 'not-found');
    const { callbackSecret: secret } = await withShop(db.app, shop.shopId, (tx) =>
      carrierConnection(tx, both.shipping.connections.carrier_b!, testSecretsKey),
    );
    await expectProblem(await callback(secret, { hello: 'world' }), 400, 'validation-failed');
    const stranger = await callback(secret, {
      label_id: 'S1.NOT.OURS',
      partner_id: null,
      status_id: 3,
      action_time: new Date().toISOString(),
    });
    expect(stranger.status).toBe(200);
    expect(await stranger.json()).toEqual({ received: true, tracked: false });
  });
});
