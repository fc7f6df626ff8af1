import { describe, expect, it } from 'vitest';
import type { Carrier } from '../../domain/shipments/index.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { readyOrder, useBothCarriers } from './shipment-fixtures.js';

/**
 * Orders addressed in the `new` geography (province and ward, the layout since 1 July 2025) pushed
 * over HTTP to each carrier simulator through the real push workflow: an address of unit ids from
 * `GET /geo/units?system=new` alone, one of names alone, and a unit a carrier cannot map.
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } }, worker: { shipments: true }, shop: true });
const { db, shop, request } = suite;

const both = useBothCarriers(suite, 'New geography');

const recipient = { recipientName: 'Trần Thị B', recipientPhone: '0912345678', addressLine: '12 Phan Đình Phùng' };
const carriers: Carrier[] = ['carrier_a', 'carrier_b'];

/** The one unit of a tier of the new system whose name contains `search`, as an integrator finds it. */
async function newUnit(search: string, parentId?: string): Promise<{ id: string; name: string; level: number }> {
  const query = new URLSearchParams({ system: 'new', search, ...(parentId ? { parentId } : {}) });
  const response = await request('GET', `/geo/units?${query}`, { key: both.key });
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: { id: string; name: string; level: number }[] };
  expect(data, search).toHaveLength(1);
  return data[0]!;
}

/** Unit ids only: the province and a ward of it, no names, no district. */
async function newSystemIds(province: string, ward: string): Promise<{ provinceUnitId: string; wardUnitId: string }> {
  const provinceUnit = await newUnit(province);
  const wardUnit = await newUnit(ward, provinceUnit.id);
  expect([provinceUnit.level, wardUnit.level]).toEqual([1, 3]);
  return { provinceUnitId: provinceUnit.id, wardUnitId: wardUnit.id };
}

const push = (carrier: Carrier, orderId: string) =>
  request('POST', '/shipments', { key: both.key, body: { orderId, connectionId: both.shipping.connections[carrier] } });

/** The province, district and ward the carrier resolved the pushed order to, in its own master data. */
function atCarrier(carrier: Carrier, shipmentId: string): { province: string; district: string | null; ward: string | null } {
  if (carrier === 'carrier_b') {
    const order = both.carrierB.orders().find((candidate) => candidate.clientRef === shipmentId);
    expect(order?.destination, 'carrier B order').toBeDefined();
    return order!.destination;
  }
  const order = both.carrierA.orders().find((candidate) => candidate.clientRef === shipmentId);
  expect(order?.request).toMatchObject({ is_new_to_address: true });
  expect(order?.request).not.toHaveProperty('to_district_id');
  const destination = order!.destination;
  if (destination.layout !== 'new') return expect.fail(`carrier A resolved the old layout: ${JSON.stringify(destination)}`);
  return { province: destination.provinceName, district: null, ward: destination.wardName };
}

const orderOf = async (orderId: string) =>
  (await (await request('GET', `/orders/${orderId}`, { key: both.key })).json()) as {
    status: string;
    shippingAddress: Record<string, unknown>;
  };

describe('an order addressed in the new geography', () => {
  for (const carrier of carriers) {
    it(`${carrier}: unit ids of GET /geo/units?system=new alone make it pushable, to that ward and province`, async () => {
      const ids = await newSystemIds('Hà Nội', 'Ba Đình');
      const { orderId } = await readyOrder(db, shop, both.shipping.warehouseId, { address: { ...recipient, ...ids } });
      expect((await orderOf(orderId)).shippingAddress).toMatchObject({
        geoSystem: 'new',
        ...ids,
        districtUnitId: null,
        districtName: null,
        provinceName: 'Thành phố Hà Nội',
        wardName: 'Phường Ba Đình',
      });

      const response = await push(carrier, orderId);
      expect(response.status, await response.clone().text()).toBe(201);
      const shipment = (await response.json()) as { id: string; trackingCode: string; recipientAddress: string };
      expect(shipment.recipientAddress).toBe('12 Phan Đình Phùng, Phường Ba Đình, Thành phố Hà Nội');
      expect(atCarrier(carrier, shipment.id)).toEqual({ province: 'Hà Nội', district: null, ward: 'Phường Ba Đình' });
      expect((await orderOf(orderId)).status).toBe('shipped');
    });

    it(`${carrier}: names alone, no ids and no district, are taken as the new layout`, async () => {
      const address = { ...recipient, provinceName: 'TP. Hồ Chí Minh', wardName: 'Sài Gòn' };
      const { orderId } = await readyOrder(db, shop, both.shipping.warehouseId, { address });
      expect((await orderOf(orderId)).shippingAddress).toMatchObject({ geoSystem: null, provinceUnitId: null, districtName: null });

      const response = await push(carrier, orderId);
      expect(response.status, await response.clone().text()).toBe(201);
      const shipment = (await response.json()) as { id: string };
      expect(atCarrier(carrier, shipment.id)).toEqual({ province: 'Hồ Chí Minh', district: null, ward: 'Phường Sài Gòn' });
    });
  }

  it('a new-system unit a carrier cannot map is 409 conflict naming it, and nothing is left at the carrier or here', async () => {
    const ids = await newSystemIds('Lào Cai', 'Phường Lào Cai');
    for (const carrier of carriers) {
      const { orderId } = await readyOrder(db, shop, both.shipping.warehouseId, { address: { ...recipient, ...ids } });
      const before = carrier === 'carrier_a' ? both.carrierA.orders().length : both.carrierB.orders().length;
      const problem = await expectProblem(await push(carrier, orderId), 409, 'conflict');
      expect(problem.detail, carrier).toContain('Tỉnh Lào Cai');
      expect(problem.detail, carrier).toMatch(carrier === 'carrier_a' ? /carrier A does not deliver to the province/ : /not served/);
      expect(carrier === 'carrier_a' ? both.carrierA.orders().length : both.carrierB.orders().length).toBe(before);
      const listed = (await (await request('GET', `/shipments?orderId=${orderId}`, { key: both.key })).json()) as { data: unknown[] };
      expect(listed.data).toEqual([]);
      expect((await orderOf(orderId)).status).toBe('ready_to_ship');
    }
  });
});
