import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { geoUnitId } from '../../domain/geography/geography.js';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import type { Tx } from '../../domain/kernel/tenancy.js';
import { addCustomer } from '../../scripts/fixtures/index.js';
import { useOrderSuite, type Order } from './order-kit.js';

/** Creating orders: totals, stock reservation, permissions, codes and idempotency. */
const { db, shop, other, keys, mainWarehouse, arrange, call, newWarehouse, newVariant, stockOf, eventsOf, createOrder } = useOrderSuite();
/** The kit's warehouse, made before the tests. */
let warehouseId: string;
beforeAll(() => {
  warehouseId = mainWarehouse.id;
});

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
      keys.basic,
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
    const foreignCustomer = await arrange((tx) => addCustomer(tx, other.shopId, { name: 'X' }), other);
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
      [{ customerId: foreignCustomer.id }, 'customerId', foreignCustomer.id],
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
      await expectProblem(await call('POST', '/orders', { warehouseId, ...body }, keys.basic), 403, 'insufficient-permission');
    }
    await createOrder({ lines: [{ ...line, discount: '0' }], discount: '0' }, keys.basic);
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
    const blocked = await arrange((tx) => addCustomer(tx, shop.shopId, { name: 'B', blocked: true }));
    await expectProblem(
      await call('POST', '/orders', { warehouseId, customerId: blocked.id, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] }),
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

  it('brings the customer’s reused older address to the front: updatedAt moves and customer.updated says addresses; the front one changes nothing', async () => {
    const customersKey = (await shop.newKey(['pos.customers.read', 'pos.customers.create', 'pos.customers.update'])).key;
    const customers = (method: string, path: string, body?: unknown) => call(method, path, body, customersKey);
    const customer = (await (await customers('POST', '/customers', { name: 'Lê Thu' })).json()) as { id: string };
    const older = { recipientName: 'Thu', recipientPhone: '0902 111 333', addressLine: '12 Lý Thường Kiệt', provinceName: 'Hà Nội' };
    const newer = { recipientName: 'Thu', recipientPhone: '0902 111 333', addressLine: '5 Nguyễn Huệ', provinceName: 'TP. Hồ Chí Minh' };
    for (const address of [older, newer])
      expect((await customers('POST', `/customers/${customer.id}/addresses`, address)).status).toBe(201);
    type Detail = { addresses: { addressLine: string }[]; updatedAt: string };
    const detail = async () => (await (await customers('GET', `/customers/${customer.id}`)).json()) as Detail;
    const before = await detail();
    expect(before.addresses.map((address) => address.addressLine)).toEqual(['5 Nguyễn Huệ', '12 Lý Thường Kiệt']);
    const customerEvents = async () => (await eventsOf(customer.id)).length;
    const eventsBefore = await customerEvents();
    const variantId = await newVariant({ price: '100000', stock: '10' });
    const order = (shippingAddress: typeof older) =>
      createOrder({ customerId: customer.id, shippingAddress, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });

    await order(older);
    const after = await detail();
    expect(after.addresses.map((address) => address.addressLine)).toEqual(['12 Lý Thường Kiệt', '5 Nguyễn Huệ']);
    expect(after.updatedAt > before.updatedAt).toBe(true);
    const events = await eventsOf(customer.id);
    expect(events).toHaveLength(eventsBefore + 1);
    const updated = events.at(-1) as unknown as { type: string; changes: unknown; data: Detail };
    expect([updated.type, updated.changes]).toEqual(['customer.updated', { fields: ['addresses'] }]);
    expect(updated.data.addresses[0]!.addressLine).toBe('12 Lý Thường Kiệt');

    // The address already in front: nothing the customer shows changed.
    await order(older);
    expect(await detail()).toEqual(after);
    expect(await customerEvents()).toBe(eventsBefore + 1);
  });

  it('keeps receivedAtShop and occurredAt as sent, in the answer, the detail and order.created; without them, false and now', async () => {
    const variantId = await newVariant({ price: '100000', stock: '10' });
    const lines = [{ variantId, quantity: '1', unitPrice: '100000' }];
    const occurredAt = '2026-11-20T08:30:15.250Z';
    const collected = (await createOrder({ receivedAtShop: true, occurredAt, lines })) as Order & Record<string, unknown>;
    expect([collected.receivedAtShop, collected.occurredAt]).toEqual([true, occurredAt]);
    const read = (await (await call('GET', `/orders/${collected.id}`)).json()) as Record<string, unknown>;
    expect([read.receivedAtShop, read.occurredAt]).toEqual([true, occurredAt]);
    const [created] = (await eventsOf(collected.id)) as unknown as { data: Record<string, unknown> }[];
    expect([created!.data.receivedAtShop, created!.data.occurredAt]).toEqual([true, occurredAt]);

    const plain = (await createOrder({ lines })) as Order & Record<string, unknown>;
    expect(plain.receivedAtShop).toBe(false);
    expect(Math.abs(Date.parse(plain.occurredAt as string) - Date.parse(plain.createdAt as string))).toBeLessThan(60_000);
  });

  it('creates exactly one order for 20 concurrent requests with the same Idempotency-Key', async () => {
    const variantId = await newVariant({ stock: '100' });
    const key = randomUUID();
    const body = { warehouseId, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] };
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => call('POST', '/orders', body, keys.full, { 'idempotency-key': key })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    expect(statuses).toContain(201);
    // A request arriving while the first still runs is told so, not run again.
    for (const response of responses.filter((candidate) => candidate.status === 409))
      await expectProblem(response, 409, 'idempotency-key-in-progress');
    const [count] = await db.admin<{ n: number }[]>`select count(*)::int as n from order_lines where variant_id = ${variantId}`;
    expect(count!.n).toBe(1);
    const replay = await call('POST', '/orders', body, keys.full, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const created = (await responses.find((response) => response.status === 201)!.json()) as Order;
    expect(((await replay.json()) as Order).id).toBe(created.id);
    await expectProblem(
      await call('POST', '/orders', { ...body, note: 'another order' }, keys.full, { 'idempotency-key': key }),
      422,
      'idempotency-key-reused',
    );
    expect(await stockOf(variantId)).toEqual({ quantity: '100', reserved: '1' });
  });
});
