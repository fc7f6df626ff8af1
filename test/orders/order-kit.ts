import { randomBytes } from 'node:crypto';
import { beforeAll, expect } from 'vitest';
import { GRANTABLE_PERMISSIONS } from '../../domain/access/permissions.js';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import { addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';

/** An order as the API answers it, with the fields the order tests read. */
export interface Order {
  id: string;
  code: string;
  status: string;
  warehouseId: string;
  customerId: string | null;
  handlerUserId: string | null;
  handlerName: string | null;
  billPhone: string | null;
  shippingAddress?: Record<string, unknown> | null;
  totalPrice: string;
  discount: string;
  shippingFee: string;
  totalAmount: string;
  paidAmount: string;
  returnedAmount: string;
  creditApplied?: string;
  exchangeReturn?: boolean;
  note: string | null;
  tags: { id: string; name: string }[];
  lines?: Record<string, string | null>[];
  payments?: { methodId: string; methodName: string; amount: string }[];
  deletedAt: string | null;
}

const ORDER_PERMISSIONS = GRANTABLE_PERMISSIONS.filter((permission) => permission.startsWith('pos.orders.'));

/**
 * The order tests' suite (API and shop), a second shop, three keys and a warehouse, with the helpers
 * that arrange products and stock and read back events. Like `useSuite`, what a `beforeAll` makes is
 * filled in place: `keys`, `other` and `mainWarehouse` are there at once, to read in hooks and tests.
 */
export function useOrderSuite() {
  const { db, shop, request } = useSuite({ api: true, shop: true });
  const other = {} as ShopFixture;
  /** full: every order permission, products and inventory read; basic: create, read, update at list price; readOnly: read. */
  const keys = { full: '', basic: '', readOnly: '' };
  /** The shop's warehouse, the orders' default. */
  const mainWarehouse = { id: '' };

  const arrange = <T>(work: (tx: Tx) => Promise<T>, fixture = shop) => withShop(db.app, fixture.shopId, work);

  const newWarehouse = (fixture: ShopFixture): Promise<string> =>
    arrange((tx) => addWarehouse(tx, fixture.shopId, { name: 'Main' }), fixture);

  beforeAll(async () => {
    Object.assign(other, await createShopFixture(db.app));
    keys.full = (await shop.newKey([...ORDER_PERMISSIONS, 'pos.products.read', 'pos.inventory.read'], 'Full')).key;
    keys.basic = (await shop.newKey(['pos.orders.read', 'pos.orders.create', 'pos.orders.update', 'pos.products.read'], 'Basic')).key;
    keys.readOnly = (await shop.newKey(['pos.orders.read'], 'Reader')).key;
    mainWarehouse.id = await newWarehouse(shop);
  });

  const call = (method: string, path: string, body?: unknown, key = keys.full, headers: Record<string, string> = {}) =>
    request(method, path, { key, body, headers });

  /** A product of one variant at `price`, with `stock` in the warehouse (none for a service). */
  async function newVariant(
    options: { price?: string; stock?: string; type?: 'simple' | 'service'; fixture?: ShopFixture; warehouse?: string } = {},
  ): Promise<string> {
    const fixture = options.fixture ?? shop;
    const product = await arrange(
      (tx) =>
        addProduct(tx, fixture.shopId, {
          name: `Shirt ${randomBytes(3).toString('hex')}`,
          type: options.type,
          price: options.price,
          variants: [{ Size: 'M' }],
          stock: options.stock ? { warehouseId: options.warehouse ?? mainWarehouse.id, quantity: options.stock } : undefined,
        }),
      fixture,
    );
    return product.variants[0]!.id;
  }

  async function stockOf(variantId: string, warehouse = mainWarehouse.id): Promise<{ quantity: string; reserved: string }> {
    const [row] = await db.admin<{ quantity: string; reserved: string }[]>`
      select api_decimal(quantity) as quantity, api_decimal(reserved) as reserved from stock where variant_id = ${variantId} and warehouse_id = ${warehouse}`;
    return row ?? { quantity: '0', reserved: '0' };
  }

  const eventsOf = (resourceId: string) =>
    db.admin<
      { type: string; changes: unknown; data: Order }[]
    >`select type, changes, data from events where resource_id = ${resourceId} order by id`;

  async function createOrder(body: Record<string, unknown>, key = keys.full): Promise<Order> {
    const response = await call('POST', '/orders', { warehouseId: mainWarehouse.id, ...body }, key);
    expect(response.status, await response.clone().text()).toBe(201);
    return (await response.json()) as Order;
  }

  const setStatus = (id: string, status: string, key = keys.full): Promise<Response> =>
    call('POST', `/orders/${id}/status`, { status }, key);

  return {
    db,
    shop,
    request,
    other,
    keys,
    mainWarehouse,
    arrange,
    call,
    newWarehouse,
    newVariant,
    stockOf,
    eventsOf,
    createOrder,
    setStatus,
  };
}
