import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { adjustStock } from '../../domain/inventory/inventory.js';
import { changeShopStatusMatrix } from '../../domain/orders/order-status.js';
import { ALL_PERMISSIONS } from '../../domain/access/permissions.js';
import { createProduct } from '../../domain/catalog/products.js';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import { addMember } from '../../domain/access/users.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { geoUnitId } from '../../domain/geography/geography.js';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import { adminCliJson, runAdminCli } from '../support/admin-cli.js';

interface Order {
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

const { db, shop, request } = useSuite({ api: true, shop: true });
let other: ShopFixture;
/** Every order permission, products and inventory read. */
let fullKey: string;
/** Create, read, update at list price: none of the field-level extras. */
let basicKey: string;
let readOnlyKey: string;
let warehouseId: string;

beforeAll(async () => {
  other = await createShopFixture(db.app);
  const orderPermissions = [
    'pos.orders.read',
    'pos.orders.create',
    'pos.orders.update',
    'pos.orders.delete',
    'pos.orders.assign',
    'pos.orders.price.override',
    'pos.orders.payment.record',
  ];
  fullKey = (await shop.newKey([...orderPermissions, 'pos.products.read', 'pos.inventory.read'], 'Full')).key;
  basicKey = (await shop.newKey(['pos.orders.read', 'pos.orders.create', 'pos.orders.update', 'pos.products.read'], 'Basic')).key;
  readOnlyKey = (await shop.newKey(['pos.orders.read'], 'Reader')).key;
  warehouseId = await newWarehouse(shop);
});
const call = (method: string, path: string, body?: unknown, key = fullKey, headers: Record<string, string> = {}) =>
  request(method, path, { key, body, headers });

const arrange = <T>(work: (tx: Tx) => Promise<T>, fixture = shop) => withShop(db.app, fixture.shopId, work);

async function newWarehouse(fixture: ShopFixture): Promise<string> {
  const [row] = await arrange(
    (tx) => tx<{ id: string }[]>`insert into warehouses (shop_id, name) values (${fixture.shopId}, 'Main') returning id`,
    fixture,
  );
  return row!.id;
}

/** A product of one variant at `price`, with `stock` in the warehouse (none for a service). */
async function newVariant(
  options: { price?: string; stock?: string; type?: 'simple' | 'service'; fixture?: ShopFixture; warehouse?: string } = {},
): Promise<string> {
  const fixture = options.fixture ?? shop;
  return arrange(async (tx) => {
    const product = await createProduct(
      tx,
      { shopId: fixture.shopId, permissions: ALL_PERMISSIONS },
      {
        name: `Shirt ${randomBytes(3).toString('hex')}`,
        type: options.type ?? 'simple',
        variants: [{ price: options.price ?? '100000', attributes: { Size: 'M' } }],
      },
    );
    const variantId = product.variants[0]!.id;
    if (options.stock)
      await adjustStock(tx, fixture.shopId, [{ variantId, warehouseId: options.warehouse ?? warehouseId, quantityDelta: options.stock }]);
    return variantId;
  }, fixture);
}

async function stockOf(variantId: string, warehouse = warehouseId): Promise<{ quantity: string; reserved: string }> {
  const [row] = await db.admin<{ quantity: string; reserved: string }[]>`
    select api_decimal(quantity) as quantity, api_decimal(reserved) as reserved from stock where variant_id = ${variantId} and warehouse_id = ${warehouse}`;
  return row ?? { quantity: '0', reserved: '0' };
}

const eventsOf = (resourceId: string) =>
  db.admin<
    { type: string; changes: unknown; data: Order }[]
  >`select type, changes, data from events where resource_id = ${resourceId} order by id`;

async function createOrder(body: Record<string, unknown>, key = fullKey): Promise<Order> {
  const response = await call('POST', '/orders', { warehouseId, ...body }, key);
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as Order;
}

async function setStatus(id: string, status: string, key = fullKey): Promise<Response> {
  return call('POST', `/orders/${id}/status`, { status }, key);
}

describe('POST /orders', () => {
  it('creates a new order with exact totals, reserved stock, a handler and only order.created', async () => {
    const shirt = await newVariant({ price: '100000', stock: '10' });
    const service = await newVariant({ price: '20000.5', type: 'service' });
    const [method] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into payment_methods (shop_id, name, kind) values (${shop.shopId}, 'Cash', 'cash') returning id`,
    );
    const [tag] = await arrange((tx) => tx<{ id: string }[]>`insert into tags (shop_id, name) values (${shop.shopId}, 'VIP') returning id`);
    const order = await createOrder({
      billFullName: 'An',
      billPhone: '090 123 4567',
      shippingAddress: { recipientName: 'An', recipientPhone: '84901234567', addressLine: '1 Lê Lợi' },
      lines: [
        { variantId: shirt, quantity: '1.5', unitPrice: '99999.999', discount: '0.5' },
        { variantId: service, quantity: '2', unitPrice: '20000.5' },
      ],
      discount: '1000',
      shippingFee: '30000',
      surcharge: '500.25',
      tax: '100',
      payments: [{ methodId: method!.id, amount: '50000.10' }],
      tagIds: [tag!.id],
    });
    // 1.5 × 99999.999 = 149999.9985 → 149999.999 (three decimals, half up) − 0.5
    expect(order.lines!.map((line) => [line.quantity, line.unitPrice, line.discount, line.lineTotal, line.returnedQuantity])).toEqual([
      ['1.5', '99999.999', '0.5', '149999.499', '0'],
      ['2', '20000.5', '0', '40001', '0'],
    ]);
    expect(order).toMatchObject({
      status: 'new',
      code: expect.stringMatching(/^DH\d{6}$/),
      totalPrice: '190000.499',
      totalAmount: '219600.749',
      paidAmount: '50000.1',
      returnedAmount: '0',
      creditApplied: '0',
      exchangeReturn: false,
      billPhone: '+84901234567',
      handlerUserId: shop.ownerId,
      handlerName: 'Owner',
      tags: [{ id: tag!.id, name: 'VIP' }],
      payments: [{ methodId: method!.id, methodName: 'Cash', amount: '50000.1' }],
    });
    expect(order.shippingAddress).toMatchObject({ recipientPhone: '+84901234567', addressLine: '1 Lê Lợi', geoSystem: null });
    expect(order.lines![0]).toMatchObject({
      variantCode: expect.any(String),
      variantName: 'M',
      productName: expect.stringMatching(/^Shirt /),
    });
    expect(await stockOf(shirt)).toEqual({ quantity: '10', reserved: '1.5' });
    expect(await stockOf(service)).toEqual({ quantity: '0', reserved: '0' });
    const events = await eventsOf(order.id);
    expect(events.map((event) => [event.type, event.changes])).toEqual([['order.created', null]]);
    expect(events[0]!.data).toEqual(order);
  });

  it('treats free shipping as no shipping fee in the total', async () => {
    const variantId = await newVariant({ price: '1000', stock: '5' });
    const order = await createOrder(
      { lines: [{ variantId, quantity: '2', unitPrice: '1000' }], shippingFee: '30000', freeShipping: true },
      basicKey,
    );
    expect(order).toMatchObject({ totalPrice: '2000', shippingFee: '30000', totalAmount: '2000' });
  });

  it('refuses malformed bodies with 400 validation-failed', async () => {
    const variantId = await newVariant({ stock: '5' });
    const line = { variantId, quantity: '1', unitPrice: '100000' };
    const cases: [Record<string, unknown>, string | null][] = [
      [{ lines: [] }, 'lines'],
      [{ lines: Array.from({ length: 201 }, () => line) }, 'lines'],
      [{ lines: [{ ...line, quantity: '0' }] }, 'lines.0.quantity'],
      [{ lines: [{ ...line, quantity: '1.2345' }] }, 'lines.0.quantity'],
      [{ lines: [{ ...line, quantity: '-1' }] }, 'lines.0.quantity'],
      [{ lines: [line], billPhone: '09abc' }, 'billPhone'],
      [{ lines: [line], handlerUserId: shop.ownerId, handlerRoleId: randomUUID() }, 'handlerRoleId'],
      // A unit that exists but in the wrong slot is about the field: errors[] under the address's prefix.
      [{ lines: [line], shippingAddress: { provinceUnitId: geoUnitId('new', '00004') } }, 'shippingAddress.provinceUnitId'],
    ];
    for (const [body, path] of cases) {
      const problem = await expectProblem(await call('POST', '/orders', { warehouseId, ...body }), 400, 'validation-failed');
      expect((problem.errors as { path: string }[]).map((error) => error.path)).toContain(path);
    }
  });

  it('refuses references of another shop or absent from it with 400, detail only', async () => {
    const foreignVariant = await newVariant({ fixture: other, stock: '5', warehouse: await newWarehouse(other) });
    await expectAbsentReference(
      await call('POST', '/orders', { warehouseId, lines: [{ variantId: foreignVariant, quantity: '1', unitPrice: '100000' }] }),
      'lines.0.variantId',
      foreignVariant,
    );
    const variantId = await newVariant({ stock: '5' });
    const line = { variantId, quantity: '1', unitPrice: '100000' };
    const [foreignCustomer] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into customers (shop_id, name) values (${other.shopId}, 'X') returning id`,
      other,
    );
    const [foreignMethod] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into payment_methods (shop_id, name) values (${other.shopId}, 'X') returning id`,
      other,
    );
    const [tag] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into tags (shop_id, name) values (${shop.shopId}, 'Known') returning id`,
    );
    const missing = randomUUID();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ warehouseId: missing }, 'warehouseId', missing],
      [{ customerId: foreignCustomer!.id }, 'customerId', foreignCustomer!.id],
      [{ salesChannelId: missing }, 'salesChannelId', missing],
      [{ payments: [{ methodId: foreignMethod!.id, amount: '1' }] }, 'payments.0.methodId', foreignMethod!.id],
      // One tag of the shop, one missing: only the missing one is named.
      [{ tagIds: [tag!.id, missing] }, 'tagIds.1', missing],
      [{ shippingAddress: { provinceUnitId: missing } }, 'shippingAddress.provinceUnitId', missing],
    ];
    for (const [body, path, id] of cases) {
      const refused = await expectAbsentReference(await call('POST', '/orders', { warehouseId, lines: [line], ...body }), path, id);
      expect(refused.detail).not.toContain(tag!.id);
    }
  });

  it('needs pos.orders.price.override for off-list prices and discounts, pos.orders.payment.record for payments', async () => {
    const variantId = await newVariant({ price: '100000', stock: '5' });
    const line = { variantId, quantity: '1', unitPrice: '100000' };
    const [method] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into payment_methods (shop_id, name) values (${shop.shopId}, 'Bank') returning id`,
    );
    for (const body of [
      { lines: [{ ...line, unitPrice: '90000' }] },
      { lines: [{ ...line, discount: '1' }] },
      { lines: [line], discount: '1' },
      { lines: [line], payments: [{ methodId: method!.id, amount: '1' }] },
    ]) {
      await expectProblem(await call('POST', '/orders', { warehouseId, ...body }, basicKey), 403, 'insufficient-permission');
    }
    await createOrder({ lines: [{ ...line, discount: '0' }], discount: '0' }, basicKey);
    const missingProductsRead = (await shop.newKey(['pos.orders.create'], 'No products')).key;
    await expectProblem(await call('POST', '/orders', { warehouseId, lines: [line] }, missingProductsRead), 403, 'insufficient-permission');
  });

  it('refuses a chosen code already used (case-insensitive) with 409 duplicate-code', async () => {
    const variantId = await newVariant({ stock: '5' });
    const line = { variantId, quantity: '1', unitPrice: '100000' };
    await createOrder({ code: 'WEB-1', lines: [line] });
    await expectProblem(await call('POST', '/orders', { warehouseId, code: 'web-1', lines: [line] }), 409, 'duplicate-code');
    // Concurrent creations with one new code: the unique index decides, the losers get the same 409.
    const racing = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', '/orders', { warehouseId, code: 'Race-7', lines: [line] })),
    );
    expect(racing.filter((response) => response.status === 201)).toHaveLength(1);
    for (const response of racing.filter((candidate) => candidate.status !== 201)) await expectProblem(response, 409, 'duplicate-code');
  });

  it('numbers generated codes per shop: each shop starts at DH000001 and counts on without gaps', async () => {
    /** Creates an order with a generated code in a new shop of its own; returns the code. */
    const newShopOrders = async () => {
      const fixture = await createShopFixture(db.app);
      const key = (await fixture.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
      const warehouse = await newWarehouse(fixture);
      const variantId = await newVariant({ fixture, warehouse, stock: '10' });
      return async () =>
        (await createOrder({ warehouseId: warehouse, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] }, key)).code;
    };
    const [first, second, third] = await Promise.all([newShopOrders(), newShopOrders(), newShopOrders()]);
    const codes = { first: [await first()], second: [await second()] };
    codes.first.push(await first(), await first());
    codes.second.push(await second());
    expect(codes).toEqual({ first: ['DH000001', 'DH000002', 'DH000003'], second: ['DH000001', 'DH000002'] });
    // A shop's first creations at once: one makes the shop's sequence, the others use it.
    expect((await Promise.all([third(), third(), third()])).sort()).toEqual(['DH000001', 'DH000002', 'DH000003']);
  });

  it('takes a generated number while another creation of the shop is still open, without waiting for it', async () => {
    const nextNumber = async (tx: Tx) => Number((await tx<{ number: string }[]>`select next_order_number()::text as number`)[0]!.number);
    // The shop's first number creates its sequence; from then on nothing is held until commit.
    await arrange(nextNumber, other);
    let taken = (_number: number) => {};
    let release = () => {};
    const openNumber = new Promise<number>((resolve) => (taken = resolve));
    const held = new Promise<void>((resolve) => (release = resolve));
    const open = arrange(async (tx) => {
      taken(await nextNumber(tx));
      await held;
    }, other);
    const first = await openNumber;
    // A wait for the open transaction would hit the lock time-out instead.
    const meanwhile = await arrange(async (tx) => {
      await tx`set local lock_timeout = '2s'`;
      return nextNumber(tx);
    }, other);
    release();
    await open;
    expect(meanwhile).toBe(first + 1);
  });

  it('refuses removed variants, blocked customers and missing stock with 422, reserving nothing', async () => {
    const removed = await newVariant({ stock: '5' });
    await arrange((tx) => tx`update variants set removed_at = now() where id = ${removed}`);
    await expectProblem(
      await call('POST', '/orders', { warehouseId, lines: [{ variantId: removed, quantity: '1', unitPrice: '100000' }] }),
      422,
      'variant-removed',
    );
    const ofDeletedProduct = await newVariant({ stock: '5' });
    await arrange(
      (tx) => tx`update products set deleted_at = now() where id = (select product_id from variants where id = ${ofDeletedProduct})`,
    );
    await expectProblem(
      await call('POST', '/orders', { warehouseId, lines: [{ variantId: ofDeletedProduct, quantity: '1', unitPrice: '100000' }] }),
      422,
      'variant-removed',
    );

    const variantId = await newVariant({ stock: '2' });
    const [blocked] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into customers (shop_id, name, is_blocked) values (${shop.shopId}, 'B', true) returning id`,
    );
    await expectProblem(
      await call('POST', '/orders', { warehouseId, customerId: blocked!.id, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] }),
      422,
      'customer-blocked',
    );
    await createOrder({ lines: [{ variantId, quantity: '1.5', unitPrice: '100000' }] });
    await expectProblem(
      await call('POST', '/orders', { warehouseId, lines: [{ variantId, quantity: '0.501', unitPrice: '100000' }] }),
      422,
      'insufficient-stock',
    );
    expect(await stockOf(variantId)).toEqual({ quantity: '2', reserved: '1.5' });
  });

  it('creates exactly one order for 20 concurrent requests with the same Idempotency-Key', async () => {
    const variantId = await newVariant({ stock: '100' });
    const key = randomUUID();
    const body = { warehouseId, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => call('POST', '/orders', body, fullKey, { 'idempotency-key': key })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    expect(statuses).toContain(201);
    // A request arriving while the first still runs is told so, not run again.
    for (const response of responses.filter((candidate) => candidate.status === 409))
      await expectProblem(response, 409, 'idempotency-key-in-progress');
    const [count] = await db.admin<{ n: number }[]>`select count(*)::int as n from order_lines where variant_id = ${variantId}`;
    expect(count!.n).toBe(1);
    const replay = await call('POST', '/orders', body, fullKey, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const created = (await responses.find((response) => response.status === 201)!.json()) as Order;
    expect(((await replay.json()) as Order).id).toBe(created.id);
    await expectProblem(
      await call('POST', '/orders', { ...body, note: 'another order' }, fullKey, { 'idempotency-key': key }),
      422,
      'idempotency-key-reused',
    );
    expect(await stockOf(variantId)).toEqual({ quantity: '100', reserved: '1' });
  });
});

describe('order reads', () => {
  it('lists rows without detail fields, filtered by status, customer and exact code', async () => {
    const variantId = await newVariant({ stock: '5' });
    const [customer] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into customers (shop_id, name) values (${shop.shopId}, 'C') returning id`,
    );
    const order = await createOrder({
      code: 'LIST-1',
      customerId: customer!.id,
      lines: [{ variantId, quantity: '1', unitPrice: '100000' }],
    });
    const byCode = (await (await call('GET', '/orders?code=LIST-1', undefined, readOnlyKey)).json()) as { data: Record<string, unknown>[] };
    expect(byCode.data.map((row) => row.id)).toEqual([order.id]);
    for (const field of ['lines', 'payments', 'shippingAddress', 'creditApplied', 'exchangeReturn'])
      expect(byCode.data[0]).not.toHaveProperty(field);
    const byCustomer = (await (await call('GET', `/orders?customerId=${customer!.id}&status=new`)).json()) as { data: { id: string }[] };
    expect(byCustomer.data.map((row) => row.id)).toEqual([order.id]);
    const cancelledOnly = (await (await call('GET', `/orders?customerId=${customer!.id}&status=cancelled`)).json()) as { data: unknown[] };
    expect(cancelledOnly.data).toEqual([]);
  });

  it('leaves the product fields of lines out for a key without pos.products.read, and 404s another shop', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    const read = (await (await call('GET', `/orders/${order.id}`, undefined, readOnlyKey)).json()) as Order;
    expect(Object.keys(read.lines![0]!).sort()).toEqual([
      'discount',
      'id',
      'lineTotal',
      'productId',
      'quantity',
      'returnedQuantity',
      'unitPrice',
      'variantId',
    ]);
    const otherKey = (await other.newKey(['pos.orders.read'])).key;
    await expectProblem(await call('GET', `/orders/${order.id}`, undefined, otherKey), 404, 'not-found');
  });

  it('leaves them out of every order answer of every route, not only GET', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    const key = (await shop.newKey(['pos.orders.read', 'pos.orders.update', 'pos.orders.delete'], 'No products')).key;
    const answers = [
      await call('PATCH', `/orders/${order.id}`, { note: 'checked' }, key),
      await call('POST', `/orders/${order.id}/status`, { status: 'confirmed' }, key),
      await call('DELETE', `/orders/${order.id}`, undefined, key),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      const line = ((await answer.json()) as Order).lines![0]!;
      for (const field of ['variantCode', 'variantName', 'productName']) expect(line).not.toHaveProperty(field);
      expect(line).toHaveProperty('variantId', variantId);
    }
  });
});

describe('order status', () => {
  it('follows the matrix: refusals are 422 order-status-not-allowed', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    for (const target of ['delivered', 'paid', 'returning', 'shipped', 'new', 'deleted']) {
      await expectProblem(await setStatus(order.id, target), 422, 'order-status-not-allowed');
    }
    expect((await setStatus(order.id, 'confirmed')).status).toBe(200);
    await expectProblem(await setStatus(order.id, 'new'), 422, 'order-status-not-allowed');
    for (const target of ['shipped', 'returning', 'returned']) expect((await setStatus(order.id, target)).status).toBe(200);
    for (const target of ['delivered', 'paid', 'partially_returned', 'new'])
      await expectProblem(await setStatus(order.id, target), 422, 'order-status-not-allowed');
    expect((await setStatus(order.id, 'cancelled')).status).toBe(200);
  });

  it("follows the shop's narrowed matrix, which can only remove moves of the default", async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    const matrix = await arrange((tx) =>
      changeShopStatusMatrix(
        tx,
        shop.shopId,
        {
          remove: [
            ['new', 'confirmed'],
            ['new', 'packing'],
          ],
        },
        null,
      ),
    );
    try {
      expect(matrix.new).toEqual(['waiting_stock', 'ready_to_ship', 'cancelled']);
      const refused = await expectProblem(await setStatus(order.id, 'confirmed'), 422, 'order-status-not-allowed');
      expect(refused.detail).toBe('this shop does not allow an order to move from new to confirmed');
      await expectProblem(await setStatus(order.id, 'packing'), 422, 'order-status-not-allowed');
      expect(await (await call('GET', `/orders/${order.id}`)).json()).toMatchObject({ status: 'new' });
      await expect(
        arrange((tx) => changeShopStatusMatrix(tx, shop.shopId, { remove: [['new', 'delivered']] }, null)),
      ).rejects.toMatchObject({
        code: 'validation-failed',
        options: { errors: [{ path: 'remove.0', message: 'new → delivered is not a move of the default matrix' }] },
      });
      expect((await setStatus(order.id, 'waiting_stock')).status).toBe(200);
    } finally {
      await arrange((tx) =>
        changeShopStatusMatrix(
          tx,
          shop.shopId,
          {
            restore: [
              ['new', 'confirmed'],
              ['new', 'packing'],
            ],
          },
          null,
        ),
      );
    }
    const later = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    expect((await setStatus(later.id, 'confirmed')).status).toBe(200);
  });

  it('ships reserved goods out of quantity, emits order.status_changed, and cancelling after shipping needs pos.orders.delete', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '2', unitPrice: '100000' }] });
    await setStatus(order.id, 'confirmed');
    const shipped = (await (await setStatus(order.id, 'shipped', basicKey)).json()) as Order;
    expect(shipped.status).toBe('shipped');
    expect(await stockOf(variantId)).toEqual({ quantity: '3', reserved: '0' });
    const events = await eventsOf(order.id);
    expect(events.map((event) => [event.type, event.changes])).toEqual([
      ['order.created', null],
      ['order.status_changed', { fields: ['status'], status: { from: 'new', to: 'confirmed' } }],
      ['order.status_changed', { fields: ['status'], status: { from: 'confirmed', to: 'shipped' } }],
    ]);
    expect(events[2]!.data).toEqual(shipped);
    await expectProblem(await setStatus(order.id, 'cancelled', basicKey), 403, 'insufficient-permission');
    expect((await setStatus(order.id, 'cancelled')).status).toBe(200);
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '0' });
  });

  it('cancelling before shipping releases the reservation without pos.orders.delete', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '2', unitPrice: '100000' }] });
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '2' });
    expect((await setStatus(order.id, 'cancelled', basicKey)).status).toBe(200);
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '0' });
  });
});

describe('PATCH /orders/{id}', () => {
  it('emits order.updated with exactly the changed fields, and nothing for a no-op', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    const response = await call('PATCH', `/orders/${order.id}`, { note: 'call first', shippingFee: '15000' }, basicKey);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ note: 'call first', shippingFee: '15000', totalAmount: '115000' });
    expect(
      (
        await call(
          'PATCH',
          `/orders/${order.id}`,
          { note: 'call first', lines: [{ variantId, quantity: '1', unitPrice: '100000' }] },
          basicKey,
        )
      ).status,
    ).toBe(200);
    const events = await eventsOf(order.id);
    expect(events.map((event) => [event.type, event.changes])).toEqual([
      ['order.created', null],
      ['order.updated', { fields: ['shippingFee', 'totalAmount', 'note'] }],
    ]);
  });

  it('replaces lines and moves the reservation; warehouse change re-reserves elsewhere', async () => {
    const first = await newVariant({ stock: '5' });
    const second = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId: first, quantity: '2', unitPrice: '100000' }] });
    const response = await call(
      'PATCH',
      `/orders/${order.id}`,
      { lines: [{ variantId: second, quantity: '3', unitPrice: '100000' }] },
      basicKey,
    );
    expect(await response.json()).toMatchObject({ totalPrice: '300000', lines: [{ variantId: second, quantity: '3' }] });
    expect(await stockOf(first)).toEqual({ quantity: '5', reserved: '0' });
    expect(await stockOf(second)).toEqual({ quantity: '5', reserved: '3' });
    await expectProblem(
      await call('PATCH', `/orders/${order.id}`, { lines: [{ variantId: second, quantity: '6', unitPrice: '100000' }] }, basicKey),
      422,
      'insufficient-stock',
    );
    const elsewhere = await newWarehouse(shop);
    await expectProblem(await call('PATCH', `/orders/${order.id}`, { warehouseId: elsewhere }, basicKey), 422, 'insufficient-stock');
    await arrange((tx) => adjustStock(tx, shop.shopId, [{ variantId: second, warehouseId: elsewhere, quantityDelta: '3' }]));
    expect((await call('PATCH', `/orders/${order.id}`, { warehouseId: elsewhere }, basicKey)).status).toBe(200);
    expect(await stockOf(second)).toEqual({ quantity: '5', reserved: '0' });
    expect(await stockOf(second, elsewhere)).toEqual({ quantity: '3', reserved: '3' });
    const events = await eventsOf(order.id);
    expect(events.filter((event) => event.type === 'order.updated').map((event) => event.changes)).toEqual([
      { fields: ['totalPrice', 'totalAmount', 'lines'] },
      { fields: ['warehouseId'] },
    ]);
  });

  it('refuses goods changes after shipping (409) and changes to a deleted order', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    await setStatus(order.id, 'confirmed');
    await setStatus(order.id, 'shipped');
    await expectProblem(
      await call('PATCH', `/orders/${order.id}`, { lines: [{ variantId, quantity: '2', unitPrice: '100000' }] }),
      409,
      'conflict',
    );
    expect((await call('PATCH', `/orders/${order.id}`, { note: 'fine' })).status).toBe(200);
    expect((await call('DELETE', `/orders/${order.id}`)).status).toBe(200);
    await expectProblem(await call('PATCH', `/orders/${order.id}`, { note: 'too late' }), 409, 'conflict');
  });

  it('refuses goods changes while a shipment has not ended (409 order-has-live-shipment), and allows them once it has', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    await setStatus(order.id, 'ready_to_ship');
    const shipmentId = await arrange(async (tx) => {
      const [connection] = await tx<
        { id: string }[]
      >`insert into carrier_connections (shop_id, carrier, name) values (${shop.shopId}, 'carrier_a', 'Carrier A') returning id`;
      const [shipment] = await tx<{ id: string }[]>`
        insert into shipments (shop_id, order_id, connection_id, carrier, tracking_code, status)
        values (${shop.shopId}, ${order.id}, ${connection!.id}, 'carrier_a', 'A123456', 'pending') returning id`;
      return shipment!.id;
    });
    const twoUnits = { lines: [{ variantId, quantity: '2', unitPrice: '100000' }] };
    for (const status of ['pending', 'delivering', 'delivery_failed', 'returning', 'exception']) {
      await arrange((tx) => tx`update shipments set status = ${status} where id = ${shipmentId}`);
      await expectProblem(await call('PATCH', `/orders/${order.id}`, twoUnits), 409, 'order-has-live-shipment');
      await expectProblem(
        await call('PATCH', `/orders/${order.id}`, { warehouseId: await newWarehouse(shop) }),
        409,
        'order-has-live-shipment',
      );
    }
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '1' });
    // Fields other than the goods stay editable.
    expect((await call('PATCH', `/orders/${order.id}`, { note: 'call before delivery' })).status).toBe(200);
    await arrange((tx) => tx`update shipments set status = 'cancelled' where id = ${shipmentId}`);
    expect(await (await call('PATCH', `/orders/${order.id}`, twoUnits)).json()).toMatchObject({ lines: [{ variantId, quantity: '2' }] });
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '2' });
  });

  it('needs pos.orders.assign for the handler; an unusable user is 400', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    const [role] = await arrange(
      (tx) =>
        tx<
          { id: string }[]
        >`insert into roles (shop_id, name, permissions) values (${shop.shopId}, 'Viewer', ${['pos.orders.read']}) returning id`,
    );
    const viewer = await addMember(db.app, shop.shopId, { email: `viewer@${shop.slug}.test`, name: 'Viewer', role: 'Viewer' });
    const seller = await addMember(db.app, shop.shopId, { email: `seller@${shop.slug}.test`, name: 'Seller' });
    await expectProblem(
      await call('PATCH', `/orders/${order.id}`, { handlerUserId: seller.id, note: 'x' }, basicKey),
      403,
      'insufficient-permission',
    );
    const refused = await expectProblem(await call('PATCH', `/orders/${order.id}`, { handlerUserId: viewer.id }), 400, 'validation-failed');
    expect(refused.errors).toEqual([{ path: 'handlerUserId', message: expect.any(String) }]);
    await expectProblem(await call('PATCH', `/orders/${order.id}`, { handlerRoleId: role!.id }), 400, 'validation-failed');
    // A user or role absent from the shop (another shop's owner included) is detail only.
    await expectAbsentReference(
      await call('PATCH', `/orders/${order.id}`, { handlerUserId: other.ownerId }),
      'handlerUserId',
      other.ownerId,
    );
    const missingRole = randomUUID();
    await expectAbsentReference(await call('PATCH', `/orders/${order.id}`, { handlerRoleId: missingRole }), 'handlerRoleId', missingRole);
    expect(await (await call('PATCH', `/orders/${order.id}`, { handlerUserId: seller.id })).json()).toMatchObject({
      handlerUserId: seller.id,
      handlerName: 'Seller',
    });
  });

  it('needs pos.orders.price.override for prices off the list, and refuses them when the shop locks prices', async () => {
    const variantId = await newVariant({ price: '100000', stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    await expectProblem(await call('PATCH', `/orders/${order.id}`, { discount: '5000' }, basicKey), 403, 'insufficient-permission');
    expect(await (await call('PATCH', `/orders/${order.id}`, { discount: '5000' })).json()).toMatchObject({
      discount: '5000',
      totalAmount: '95000',
    });
    await db.admin`update shops set lock_prices = true where id = ${shop.shopId}`;
    try {
      await expectProblem(
        await call('PATCH', `/orders/${order.id}`, { lines: [{ variantId, quantity: '1', unitPrice: '1' }] }),
        403,
        'insufficient-permission',
      );
    } finally {
      await db.admin`update shops set lock_prices = false where id = ${shop.shopId}`;
    }
  });
});

describe('DELETE /orders/{id}', () => {
  it('marks the order deleted, releases the reservation and emits order.deleted', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ code: 'DEL-1', lines: [{ variantId, quantity: '2', unitPrice: '100000' }] });
    await expectProblem(await call('DELETE', `/orders/${order.id}`, undefined, basicKey), 403, 'insufficient-permission');
    const deleted = (await (await call('DELETE', `/orders/${order.id}`)).json()) as Order;
    expect(deleted).toMatchObject({ status: 'deleted', deletedAt: expect.any(String) });
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '0' });
    expect((await eventsOf(order.id)).map((event) => event.type)).toEqual(['order.created', 'order.deleted']);
    const hidden = (await (await call('GET', '/orders?code=DEL-1')).json()) as { data: unknown[] };
    expect(hidden.data).toEqual([]);
    const shown = (await (await call('GET', '/orders?code=DEL-1&includeDeleted=true')).json()) as { data: { id: string }[] };
    expect(shown.data.map((row) => row.id)).toEqual([order.id]);
    await expectProblem(await setStatus(order.id, 'new'), 422, 'order-status-not-allowed');
  });
});

describe('order notes', () => {
  it('adds notes attributed to the application and lists them newest first', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    for (const message of ['first', 'second']) {
      const response = await call('POST', `/orders/${order.id}/notes`, { message }, basicKey);
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ message, createdByName: 'Basic', createdByIsIntegration: true });
    }
    const notes = (await (await call('GET', `/orders/${order.id}/notes`, undefined, readOnlyKey)).json()) as {
      data: { message: string }[];
    };
    expect(notes.data.map((note) => note.message)).toEqual(['second', 'first']);
    await expectProblem(await call('POST', `/orders/${order.id}/notes`, { message: '' }, basicKey), 400, 'validation-failed');
    await expectProblem(await call('POST', `/orders/${order.id}/notes`, { message: 'x'.repeat(5001) }, basicKey), 400, 'validation-failed');
    await expectProblem(await call('GET', `/orders/${randomUUID()}/notes`), 404, 'not-found');
  });
});

describe('returns', () => {
  it('records returned goods and money through the admin CLI; switching refund and exchange names exchangeReturn', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '3', unitPrice: '100000', discount: '30000' }] });
    const replacement = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    await setStatus(order.id, 'confirmed');
    await setStatus(order.id, 'shipped');
    const lineId = order.lines![0]!.id!;
    const cli = (...args: string[]) => runAdminCli(db.appUrl, args);

    const tooMany = await cli('order:return', '--shop', shop.slug, '--order', order.id, '--lines', `${lineId}:4`);
    expect({ code: tooMany.code, stdout: tooMany.stdout }).toEqual({ code: 1, stdout: '' });
    expect(tooMany.stderr).toContain('0 of 3 already returned (validation-failed)');
    expect((await cli('order:return', '--shop', shop.slug, '--order', order.id, '--lines', `${lineId}:1.2345`)).code).toBe(2);
    const unshipped = await cli(
      'order:return',
      '--shop',
      shop.slug,
      '--order',
      replacement.id,
      '--lines',
      `${replacement.lines![0]!.id!}:1`,
    );
    expect(unshipped.stderr).toContain('has no goods with the customer (conflict)');

    const returned = await adminCliJson(db.appUrl, [
      'order:return',
      '--shop',
      shop.slug,
      '--order',
      order.id,
      '--lines',
      `${lineId}:1`,
      '--exchange',
      '--credit-order',
      replacement.id,
    ]);
    expect(returned).toEqual({ returnId: expect.any(String), orderId: order.id, returnedAmount: '90000', exchangeReturn: true });
    expect(await (await call('GET', `/orders/${order.id}`)).json()).toMatchObject({
      returnedAmount: '90000',
      exchangeReturn: true,
      lines: [{ returnedQuantity: '1' }],
    });
    expect(await stockOf(variantId)).toEqual({ quantity: '3', reserved: '1' });
    const reviewed = await adminCliJson(db.appUrl, [
      'order:return-review',
      '--shop',
      shop.slug,
      '--return',
      returned.returnId!,
      '--exchange',
      'false',
    ]);
    expect(reviewed).toEqual({ returnId: returned.returnId, orderId: order.id, exchangeReturn: false });
    const updates = (await eventsOf(order.id)).filter((event) => event.type === 'order.updated').map((event) => event.changes);
    expect(updates).toEqual([{ fields: ['returnedAmount', 'exchangeReturn', 'lines'] }, { fields: ['exchangeReturn'] }]);
    const credited = (await (await call('GET', `/orders/${replacement.id}`)).json()) as Order;
    expect(credited.creditApplied).toBe('90000');
  });
});

describe('handler assignment', () => {
  it('falls from an unusable named user to the next tier, and round-robins a role evenly under concurrency', async () => {
    const roleShop = await createShopFixture(db.app);
    const key = (await roleShop.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(roleShop);
    const variantId = await newVariant({ fixture: roleShop, warehouse, stock: '1000' });
    const [role] = await arrange(
      (tx) =>
        tx<
          { id: string }[]
        >`insert into roles (shop_id, name, permissions) values (${roleShop.shopId}, 'Sales', ${['pos.orders.update']}) returning id`,
      roleShop,
    );
    const sellers = await Promise.all(
      [1, 2, 3, 4].map((n) => addMember(db.app, roleShop.shopId, { email: `s${n}@${roleShop.slug}.test`, name: `S${n}`, role: 'Sales' })),
    );
    const locked = await addMember(db.app, roleShop.shopId, { email: `locked@${roleShop.slug}.test`, name: 'Locked', role: 'Sales' });
    await db.admin`update users set locked = true where id = ${locked.id}`;
    const body = (extra: Record<string, unknown>) => ({
      warehouseId: warehouse,
      lines: [{ variantId, quantity: '1', unitPrice: '100000' }],
      ...extra,
    });
    const post = (extra: Record<string, unknown>) => call('POST', '/orders', body(extra), key);

    const named = (await (await post({ handlerUserId: locked.id, handlerRoleId: null })).json()) as Order;
    expect(named.handlerUserId).toBe(roleShop.ownerId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => post({ handlerRoleId: role!.id })));
    const handlers = await Promise.all(responses.map(async (response) => ((await response.json()) as Order).handlerUserId));
    const counts = new Map<string | null, number>();
    for (const handler of handlers) counts.set(handler, (counts.get(handler) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(sellers.map((seller) => [seller.id, 5])));
  });

  it('without a choice round-robins the roles that see only their own orders', async () => {
    const ownShop = await createShopFixture(db.app);
    const key = (await ownShop.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(ownShop);
    const variantId = await newVariant({ fixture: ownShop, warehouse, stock: '1000' });
    await arrange(
      (tx) =>
        tx`insert into roles (shop_id, name, permissions, sees_only_own_orders) values (${ownShop.shopId}, 'Own', ${['pos.orders.update']}, true)`,
      ownShop,
    );
    const members = await Promise.all(
      [1, 2].map((n) => addMember(db.app, ownShop.shopId, { email: `o${n}@${ownShop.slug}.test`, name: `O${n}`, role: 'Own' })),
    );
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('POST', '/orders', { warehouseId: warehouse, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] }, key),
      ),
    );
    const handlers = await Promise.all(responses.map(async (response) => ((await response.json()) as Order).handlerUserId));
    expect(members.map((member) => handlers.filter((handler) => handler === member.id).length)).toEqual([10, 10]);
  });

  it('without such roles round-robins the three users with the most orders in the last 30 days', async () => {
    const busyShop = await createShopFixture(db.app);
    const key = (await busyShop.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(busyShop);
    const variantId = await newVariant({ fixture: busyShop, warehouse, stock: '1000' });
    await arrange(
      (tx) => tx`insert into roles (shop_id, name, permissions) values (${busyShop.shopId}, 'Sales', ${['pos.orders.update']})`,
      busyShop,
    );
    const members = await Promise.all(
      [1, 2, 3, 4].map((n) => addMember(db.app, busyShop.shopId, { email: `s${n}@${busyShop.slug}.test`, name: `S${n}`, role: 'Sales' })),
    );
    // Recent orders 5, 4, 3 and 1; the fourth user's many older orders do not count.
    const history: [number, number, number][] = [
      [0, 5, 2],
      [1, 4, 3],
      [2, 3, 4],
      [3, 1, 5],
      [3, 10, 40],
    ];
    for (const [member, count, daysAgo] of history) {
      await arrange(
        (tx) => tx`
        insert into orders (shop_id, code, warehouse_id, handler_user_id, created_at)
        select ${busyShop.shopId}, ${`H${member}-${daysAgo}-`} || i, ${warehouse}, ${members[member]!.id}, now() - make_interval(days => ${daysAgo})
        from generate_series(1, ${count}) as i`,
        busyShop,
      );
    }
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        call('POST', '/orders', { warehouseId: warehouse, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] }, key),
      ),
    );
    const handlers = await Promise.all(responses.map(async (response) => ((await response.json()) as Order).handlerUserId));
    expect(members.map((member) => handlers.filter((handler) => handler === member.id).length)).toEqual([2, 2, 2, 0]);
  });
});
