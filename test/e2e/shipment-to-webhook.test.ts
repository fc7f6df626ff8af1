import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { CarrierA } from '../../simulators/carriers/carrier-a.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { useSuite } from '../support/suite.js';
import { connectShipping, readyOrder, SHIPPING_PERMISSIONS, type ShippingShop } from '../shipments/shipment-fixtures.js';

/**
 * A shipment's whole life at each carrier, from `POST /shipments` to the carrier's last callback,
 * as a flow receives it: signed `shipment.created` and `shipment.status_changed` webhooks, with a
 * partial delivery's return leg at carrier B.
 */
const suite = useSuite({
  api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } },
  shop: true,
  receiver: true,
  worker: { shipments: true },
  relay: { retryDelaysMs: [300, 300, 300] },
});
const { db, shop, receiver, request } = suite;

let carrierA: CarrierA;
let carrierB: CarrierB;
let shipping: ShippingShop;

beforeAll(async () => {
  const options = { callbackRetry: { attempts: 4, baseDelayMs: 50 } };
  [carrierA, carrierB] = await Promise.all([CarrierA.start(options), CarrierB.start(options)]);
  shipping = await connectShipping(db, shop, { carrier_a: carrierA, carrier_b: carrierB }, suite.api.baseUrl);
});
afterAll(async () => Promise.all([carrierA?.close(), carrierB?.close()]));

const flowOn = (eventType: 'shipment.created' | 'shipment.status_changed', inbox: string) =>
  shop.newFlow({ name: eventType, eventType, url: receiver.url(inbox), state: 'on' });

interface ShipmentEvent {
  type: string;
  data: { id: string; status: string; events: { carrierStatus: string | null }[] };
  changes?: { fields: string[]; status?: { from: string; to: string } };
}

describe('a shipment from push to its last callback, at a flow', () => {
  it(
    'delivers signed shipment.created and shipment.status_changed for a delivery at A and a partial delivery at B',
    { timeout: 60_000 },
    async () => {
      const created = await flowOn('shipment.created', 'shipment-created');
      const changed = await flowOn('shipment.status_changed', 'shipment-changed');
      const key = (await shop.newKey(SHIPPING_PERMISSIONS, 'Shipping e2e')).key;
      const push = async (carrier: 'carrier_a' | 'carrier_b') => {
        const { orderId } = await readyOrder(db, shop, shipping.warehouseId);
        const response = await request('POST', '/shipments', { key, body: { orderId, connectionId: shipping.connections[carrier] } });
        expect(response.status, await response.clone().text()).toBe(201);
        return (await response.json()) as { id: string; orderId: string; trackingCode: string };
      };

      const atA = await push('carrier_a');
      for (const step of ['picking', 'picked', 'storing', 'delivering', 'delivered'] as const) carrierA.advance(atA.trackingCode, step);
      const atB = await push('carrier_b');
      for (const step of [12, 123, 3, 4] as const) carrierB.advance(atB.trackingCode, step);
      // Wait for B's "delivering" before the partial delivery, so its steps are recorded in the carrier's order.
      await receiver.waitFor('shipment-changed', 2);
      const { returnLeg } = carrierB.partialDelivery(atB.trackingCode);
      await receiver.waitFor('shipment-changed', 4);
      carrierB.advance(returnLeg.code, 21);

      const createdRequests = await receiver.waitFor('shipment-created', 2);
      const changedRequests = await receiver.waitFor('shipment-changed', 6);
      const verify = (secret: string, body: string, headers: Record<string, unknown>) =>
        new Webhook(secret).verify(body, headers as Record<string, string>) as ShipmentEvent;
      const createdEvents = createdRequests.map((received) => verify(created.secret, received.body, received.headers));
      expect(createdEvents.map((event) => event.data.id).sort()).toEqual([atA.id, atB.id].sort());
      expect(createdEvents.every((event) => event.changes === undefined && event.data.status === 'pending')).toBe(true);

      const changedEvents = changedRequests.map((received) => verify(changed.secret, received.body, received.headers));
      const of = (id: string) => changedEvents.filter((event) => event.data.id === id).map((event) => event.changes);
      expect(of(atA.id)).toEqual([
        expect.objectContaining({ status: { from: 'pending', to: 'delivering' } }),
        expect.objectContaining({ status: { from: 'delivering', to: 'delivered' } }),
      ]);
      expect(of(atB.id)).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ status: { from: 'pending', to: 'delivering' } }),
          expect.objectContaining({ status: { from: 'delivering', to: 'partially_returned' } }),
          { fields: ['events'] },
        ]),
      );
      // The return leg: one event per step (20 when the label is made, 21 back at the shop), no status change.
      const returnSteps = changedEvents.filter((event) => event.data.id === atB.id && !event.changes?.status);
      expect(returnSteps).toHaveLength(2);
      expect(returnSteps.every((event) => event.data.status === 'partially_returned')).toBe(true);
      const [orderA, orderB] = await Promise.all(
        [atA, atB].map(
          async (shipment) => ((await (await request('GET', `/orders/${shipment.orderId}`, { key })).json()) as { status: string }).status,
        ),
      );
      expect([orderA, orderB]).toEqual(['delivered', 'partially_returned']);
    },
  );
});
