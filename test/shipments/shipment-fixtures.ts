import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { withShop } from '../../domain/kernel/tenancy.js';
import { ALL_PERMISSIONS } from '../../domain/access/permissions.js';
import { prepareShipmentPush } from '../../domain/orders/index.js';
import type { Carrier } from '../../domain/shipments/index.js';
import { addOrder, addProduct, addWarehouse, HANOI_RECIPIENT } from '../../scripts/fixtures/index.js';
import { connectTestCarrier } from '../support/carriers.js';
import type { TestDatabase } from '../support/database.js';
import { testSecretsKey, type ShopFixture } from '../support/fixtures.js';
import type { Suite } from '../support/suite.js';
import { CarrierA } from '../../simulators/carriers/carrier-a.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import type { CarrierStartOptions } from '../../simulators/carriers/shared/simulator.js';

/** Everything a key needs to push, read and cancel shipments. */
export const SHIPPING_PERMISSIONS = ['pos.shipping.read', 'pos.orders.read', 'pos.orders.update', 'pos.products.read'];

export interface ShippingShop {
  warehouseId: string;
  /** A connection to each simulator that was given, callbacks registered to the API at `apiBaseUrl`. */
  connections: Partial<Record<Carrier, string>>;
}

/** A warehouse and a connection to each given carrier simulator, whose callbacks reach the API at `apiBaseUrl`. */
export async function connectShipping(
  db: TestDatabase,
  shop: ShopFixture,
  carriers: Partial<Record<Carrier, { url: string }>>,
  apiBaseUrl: string,
): Promise<ShippingShop> {
  const warehouseId = await withShop(db.app, shop.shopId, (tx) => addWarehouse(tx, shop.shopId));
  const connections: Partial<Record<Carrier, string>> = {};
  for (const [carrier, simulator] of Object.entries(carriers) as [Carrier, { url: string }][]) {
    const options = { publicBaseUrl: apiBaseUrl, warehouseId };
    connections[carrier] = (await connectTestCarrier(db.app, shop.shopId, carrier, simulator, options)).connectionId;
  }
  return { warehouseId, connections };
}

/**
 * An order ready to ship: one product with `stock` in the warehouse, `quantity` of it ordered to
 * `address` (Hà Nội by default), moved to `ready_to_ship`.
 */
export async function readyOrder(
  db: TestDatabase,
  shop: ShopFixture,
  warehouseId: string,
  options: { stock?: string; quantity?: string; status?: 'new' | 'ready_to_ship'; address?: Record<string, string> } = {},
): Promise<{ orderId: string; variantId: string }> {
  return withShop(db.app, shop.shopId, async (tx) => {
    const product = await addProduct(tx, shop.shopId, {
      name: `Áo thun ${randomBytes(3).toString('hex')}`,
      price: '150000',
      variants: [{ Size: 'M' }],
      stock: { warehouseId, quantity: options.stock ?? '10' },
    });
    const variantId = product.variants[0]!.id;
    const order = await addOrder(
      tx,
      shop.shopId,
      {
        warehouseId,
        shippingAddress: options.address ?? HANOI_RECIPIENT,
        lines: [{ variantId, quantity: options.quantity ?? '2', unitPrice: '150000' }],
      },
      { readyToShip: (options.status ?? 'ready_to_ship') === 'ready_to_ship' },
    );
    return { orderId: order.id, variantId };
  });
}

/**
 * A push prepared as `POST /shipments` prepares it (the row written, the carrier's request built) for
 * an order ready to ship over `connectionId`: what `pushShipment` takes (`keys`, and the opened
 * `connection` it may hand over), for tests that call the starter themselves.
 */
export async function preparedPush(db: TestDatabase, shop: ShopFixture, warehouseId: string, connectionId: string) {
  const { orderId, variantId } = await readyOrder(db, shop, warehouseId);
  const actor = { shopId: shop.shopId, permissions: ALL_PERMISSIONS, applicationId: null };
  const push = await withShop(db.app, shop.shopId, (tx) => prepareShipmentPush(tx, actor, { orderId, connectionId }, testSecretsKey));
  return {
    orderId,
    variantId,
    shipmentId: push.shipmentId,
    /** The connection opened as the request opens it: what it hands to a run on its own worker. */
    connection: push.connection,
    keys: {
      shopId: shop.shopId,
      shipmentId: push.shipmentId,
      orderId,
      carrier: push.carrier,
      connectionId,
      applicationId: null,
      request: push.request,
    },
  };
}

/** Stock of a variant in a warehouse, as the database holds it. */
export async function stockOf(db: TestDatabase, variantId: string, warehouseId: string): Promise<{ quantity: string; reserved: string }> {
  const [row] = await db.admin<{ quantity: string; reserved: string }[]>`
    select api_decimal(quantity) as quantity, api_decimal(reserved) as reserved from stock where variant_id = ${variantId} and warehouse_id = ${warehouseId}`;
  return row ?? { quantity: '0', reserved: '0' };
}

/** Both carrier simulators, connected to the suite's shop, and a key of SHIPPING_PERMISSIONS. */
export interface BothCarriers {
  carrierA: CarrierA;
  carrierB: CarrierB;
  shipping: ShippingShop;
  key: string;
}

/** Starts both simulators and connects them in a `beforeAll` (the key named `keyName`), closes them in an `afterAll`. */
export function useBothCarriers(suite: Suite, keyName: string, options: CarrierStartOptions = {}): BothCarriers {
  const both = {} as BothCarriers;
  beforeAll(async () => {
    [both.carrierA, both.carrierB] = await Promise.all([CarrierA.start(options), CarrierB.start(options)]);
    both.shipping = await connectShipping(suite.db, suite.shop, { carrier_a: both.carrierA, carrier_b: both.carrierB }, suite.api.baseUrl);
    both.key = (await suite.shop.newKey(SHIPPING_PERMISSIONS, keyName)).key;
  });
  afterAll(async () => {
    await Promise.all([both.carrierA?.close(), both.carrierB?.close()]);
  });
  return both;
}

/** The carrier B simulator connected to the suite's shop, a key of SHIPPING_PERMISSIONS, and the push tests' requests with it. */
export function usePushCarrier(suite: Suite, options: CarrierStartOptions = {}) {
  const parts = {} as { carrier: CarrierB; shipping: ShippingShop; key: string };
  beforeAll(async () => {
    parts.carrier = await CarrierB.start(options);
    parts.shipping = await connectShipping(suite.db, suite.shop, { carrier_b: parts.carrier }, suite.api.baseUrl);
    parts.key = (await suite.shop.newKey(SHIPPING_PERMISSIONS, 'Shipping')).key;
  });
  afterAll(async () => parts.carrier?.close());
  const connectionId = () => parts.shipping.connections.carrier_b!;
  const read = async <T>(path: string) => (await (await suite.request('GET', path, { key: parts.key })).json()) as T;
  return {
    parts,
    connectionId,
    push: (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      suite.request('POST', '/shipments', { key: parts.key, body: { connectionId: connectionId(), ...body }, headers }),
    orderStatus: async (orderId: string) => (await read<{ status: string }>(`/orders/${orderId}`)).status,
    shipmentsOf: async (orderId: string) =>
      (await read<{ data: { id: string; trackingCode: string | null }[] }>(`/shipments?orderId=${orderId}`)).data,
    carrierOrdersFor: (shipmentId: string) => parts.carrier.orders().filter((order) => order.clientRef === shipmentId),
  };
}
