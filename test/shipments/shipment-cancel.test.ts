import { describe, expect, it, vi } from 'vitest';
import type { Carrier } from '../../domain/shipments/index.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { readyOrder, useBothCarriers, type BothCarriers } from './shipment-fixtures.js';

/**
 * `POST /shipments/{id}/cancel` where the carrier is not asked: a push still open (503
 * `carrier-unavailable`, a code the operation lists) and a shipment that has ended at the carrier,
 * delivered or returned as its callbacks report (409 `shipment-not-cancellable`).
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } }, worker: { shipments: true }, shop: true });
const { db, shop, request } = suite;

const both = useBothCarriers(suite, 'Cancels', { callbackRetry: { attempts: 4, baseDelayMs: 50 } });

interface Shipment {
  id: string;
  orderId: string;
  trackingCode: string | null;
  status: string;
}

const push = (carrier: Carrier, orderId: string) =>
  request('POST', '/shipments', { key: both.key, body: { orderId, connectionId: both.shipping.connections[carrier] } });
const cancel = (id: string) => request('POST', `/shipments/${id}/cancel`, { key: both.key, body: { reason: 'Khách đổi ý' } });
const read = async (id: string) => (await (await request('GET', `/shipments/${id}`, { key: both.key })).json()) as Shipment;
const orderStatus = async (id: string) =>
  ((await (await request('GET', `/orders/${id}`, { key: both.key })).json()) as { status: string }).status;
const cancelCalls = (carrier: BothCarriers['carrierA'] | BothCarriers['carrierB']) =>
  carrier.apiCalls.filter((call) => call.includes('cancel'));

async function pushed(carrier: Carrier): Promise<Shipment & { trackingCode: string }> {
  const { orderId } = await readyOrder(db, shop, both.shipping.warehouseId);
  const response = await push(carrier, orderId);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as Shipment & { trackingCode: string };
}

/** Waits until the shipment reads `status`: the carrier's callbacks travel and the tracking records them. */
async function until(id: string, status: string): Promise<void> {
  await vi.waitFor(async () => expect((await read(id)).status).toBe(status), { timeout: 20_000, interval: 100 });
}

describe('POST /shipments/{id}/cancel', () => {
  it('while the push is still open: 503 carrier-unavailable saying why, nothing cancelled; once the carrier answers, it cancels', async () => {
    const { orderId } = await readyOrder(db, shop, both.shipping.warehouseId);
    // The carrier takes 3 s to answer the create: the shipment exists here, without a tracking code.
    both.carrierB.faults.inject('create', { type: 'timeout', delayMs: 3_000 });
    const pushing = push('carrier_b', orderId);
    let open: Shipment | undefined;
    await vi.waitFor(
      async () => {
        const { data } = (await (await request('GET', `/shipments?orderId=${orderId}`, { key: both.key })).json()) as { data: Shipment[] };
        expect(data).toHaveLength(1);
        open = data[0];
      },
      { timeout: 2_500, interval: 50 },
    );
    expect(open!.trackingCode).toBeNull();
    const calls = cancelCalls(both.carrierB).length;

    const refused = await expectProblem(await cancel(open!.id), 503, 'carrier-unavailable');
    expect(refused.detail).toMatch(/still being pushed to the carrier/);
    expect(refused.detail).toContain(`GET /shipments/${open!.id}`);
    expect(cancelCalls(both.carrierB)).toHaveLength(calls);

    const answered = await pushing;
    expect(answered.status, await answered.clone().text()).toBe(201);
    expect(await orderStatus(orderId)).toBe('shipped');
    const cancelled = await cancel(open!.id);
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    expect(((await cancelled.json()) as Shipment).status).toBe('cancelled');
  });

  it('a delivered shipment (carrier A) is 409 shipment-not-cancellable; the carrier is not asked and nothing changes', async () => {
    const shipment = await pushed('carrier_a');
    for (const step of ['picking', 'picked'] as const) both.carrierA.advance(shipment.trackingCode, step);
    await until(shipment.id, 'delivering');
    for (const step of ['storing', 'delivering', 'delivered'] as const) both.carrierA.advance(shipment.trackingCode, step);
    await until(shipment.id, 'delivered');
    const calls = cancelCalls(both.carrierA).length;

    const refused = await expectProblem(await cancel(shipment.id), 409, 'shipment-not-cancellable');
    expect(refused.detail).toMatch(/delivered/);
    expect(cancelCalls(both.carrierA)).toHaveLength(calls);
    expect((await read(shipment.id)).status).toBe('delivered');
    expect(await orderStatus(shipment.orderId)).toBe('delivered');
  });

  it('a returned shipment (carrier B) is 409 shipment-not-cancellable; the carrier is not asked and nothing changes', async () => {
    const shipment = await pushed('carrier_b');
    for (const step of [12, 123, 3, 4] as const) both.carrierB.advance(shipment.trackingCode, step);
    await until(shipment.id, 'delivering');
    for (const step of [49, 9] as const) both.carrierB.advance(shipment.trackingCode, step);
    await until(shipment.id, 'delivery_failed');
    for (const step of [20, 21] as const) both.carrierB.advance(shipment.trackingCode, step);
    await until(shipment.id, 'returned');
    const calls = cancelCalls(both.carrierB).length;

    const refused = await expectProblem(await cancel(shipment.id), 409, 'shipment-not-cancellable');
    expect(refused.detail).toMatch(/returned/);
    expect(cancelCalls(both.carrierB)).toHaveLength(calls);
    expect((await read(shipment.id)).status).toBe('returned');
    expect(await orderStatus(shipment.orderId)).toBe('returned');
  });
});
