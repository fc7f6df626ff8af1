import { describe, expect, it } from 'vitest';
import { withShop } from '../../domain/kernel/tenancy.js';
import { recordReturn } from '../../domain/orders/order-lifecycle.js';
import type { Carrier } from '../../domain/shipments/index.js';
import { useSuite } from '../support/suite.js';
import { readyOrder, useBothCarriers } from './shipment-fixtures.js';

/**
 * Cash on delivery when the order carries credit from another order's return (`creditApplied`):
 * the amount still to collect excludes it (spec, Order), in the shipment and at each carrier.
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } }, worker: { shipments: true }, shop: true });
const { db, shop, request } = suite;

const both = useBothCarriers(suite, 'COD');

/** The cash each simulator was asked to collect for the shipment (its own field, whole đồng). */
const collectedAt: Record<Carrier, (shipmentId: string) => number | undefined> = {
  carrier_a: (id) => both.carrierA.orders().find((order) => order.request.client_order_code === id)?.request.cod_amount,
  carrier_b: (id) => both.carrierB.orders().find((order) => order.clientRef === id)?.pickMoney,
};

/**
 * An order of 300,000 ready to ship, credited `returned` of 150,000 goods sent back on another
 * (shipped) order: returning one of its two items credits 150,000.
 */
async function creditedOrder(returnedItems: string): Promise<{ orderId: string }> {
  const target = await readyOrder(db, shop, both.shipping.warehouseId);
  const source = await readyOrder(db, shop, both.shipping.warehouseId);
  const shipped = await request('POST', `/orders/${source.orderId}/status`, { key: both.key, body: { status: 'shipped' } });
  expect(shipped.status, await shipped.clone().text()).toBe(200);
  await withShop(db.app, shop.shopId, async (tx) => {
    const [line] = await tx<{ id: string }[]>`select id from order_lines where order_id = ${source.orderId}`;
    await recordReturn(tx, shop.shopId, source.orderId, {
      lines: [{ lineId: line!.id, quantity: returnedItems }],
      exchange: true,
      creditOrderId: target.orderId,
    });
  });
  return target;
}

async function push(carrier: Carrier, body: Record<string, unknown>) {
  const response = await request('POST', '/shipments', {
    key: both.key,
    body: { connectionId: both.shipping.connections[carrier], ...body },
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string; codAmount: string };
}

describe('cash on delivery', () => {
  for (const carrier of ['carrier_a', 'carrier_b'] as const) {
    it(`${carrier}: by default collects the total less what is paid and the credit applied, never below 0`, async () => {
      const { orderId } = await creditedOrder('1');
      const order = (await (await request('GET', `/orders/${orderId}`, { key: both.key })).json()) as Record<string, string>;
      expect(order).toMatchObject({ totalAmount: '300000', paidAmount: '0', creditApplied: '150000' });

      const shipment = await push(carrier, { orderId });
      expect(shipment.codAmount).toBe('150000');
      expect(collectedAt[carrier](shipment.id)).toBe(150_000);
      const listed = (await (await request('GET', `/shipments?orderId=${orderId}`, { key: both.key })).json()) as {
        data: { codAmount: string }[];
      };
      expect(listed.data.map((row) => row.codAmount)).toEqual(['150000']);

      // Credit covering the whole order: nothing to collect.
      const covered = await creditedOrder('2');
      const free = await push(carrier, { orderId: covered.orderId });
      expect(free.codAmount).toBe('0');
      expect(collectedAt[carrier](free.id)).toBe(0);
    });
  }

  it('collects what the request names, credit or not', async () => {
    const { orderId } = await creditedOrder('1');
    const shipment = await push('carrier_b', { orderId, codAmount: '200000' });
    expect(shipment.codAmount).toBe('200000');
    expect(collectedAt.carrier_b(shipment.id)).toBe(200_000);
  });
});
