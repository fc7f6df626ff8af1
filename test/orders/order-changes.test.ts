import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addMember } from '../../domain/access/users.js';
import { adjustStock } from '../../domain/inventory/inventory.js';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import { addOrder } from '../../scripts/fixtures/index.js';
import { useOrderSuite, type Order } from './order-kit.js';

/** Changing orders: PATCH, DELETE and notes. */
const { db, shop, other, keys, arrange, call, newWarehouse, newVariant, stockOf, eventsOf, createOrder, setStatus } = useOrderSuite();

describe('PATCH /orders/{id}', () => {
  it('emits order.updated with exactly the changed fields, and nothing for a no-op', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    const response = await call('PATCH', `/orders/${order.id}`, { note: 'call first', shippingFee: '15000' }, keys.basic);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ note: 'call first', shippingFee: '15000', totalAmount: '115000' });
    expect(
      (
        await call(
          'PATCH',
          `/orders/${order.id}`,
          { note: 'call first', lines: [{ variantId, quantity: '1', unitPrice: '100000' }] },
          keys.basic,
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
      keys.basic,
    );
    expect(await response.json()).toMatchObject({ totalPrice: '300000', lines: [{ variantId: second, quantity: '3' }] });
    expect(await stockOf(first)).toEqual({ quantity: '5', reserved: '0' });
    expect(await stockOf(second)).toEqual({ quantity: '5', reserved: '3' });
    await expectProblem(
      await call('PATCH', `/orders/${order.id}`, { lines: [{ variantId: second, quantity: '6', unitPrice: '100000' }] }, keys.basic),
      422,
      'insufficient-stock',
    );
    const elsewhere = await newWarehouse(shop);
    await expectProblem(await call('PATCH', `/orders/${order.id}`, { warehouseId: elsewhere }, keys.basic), 422, 'insufficient-stock');
    await arrange((tx) => adjustStock(tx, shop.shopId, [{ variantId: second, warehouseId: elsewhere, quantityDelta: '3' }]));
    expect((await call('PATCH', `/orders/${order.id}`, { warehouseId: elsewhere }, keys.basic)).status).toBe(200);
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
      await call('PATCH', `/orders/${order.id}`, { handlerUserId: seller.id, note: 'x' }, keys.basic),
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
    await expectProblem(await call('PATCH', `/orders/${order.id}`, { discount: '5000' }, keys.basic), 403, 'insufficient-permission');
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
    await expectProblem(await call('DELETE', `/orders/${order.id}`, undefined, keys.basic), 403, 'insufficient-permission');
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
      const response = await call('POST', `/orders/${order.id}/notes`, { message }, keys.basic);
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({ message, createdByName: 'Basic', createdByIsIntegration: true });
    }
    const notes = (await (await call('GET', `/orders/${order.id}/notes`, undefined, keys.readOnly)).json()) as {
      data: { message: string }[];
    };
    expect(notes.data.map((note) => note.message)).toEqual(['second', 'first']);
    await expectProblem(await call('POST', `/orders/${order.id}/notes`, { message: '' }, keys.basic), 400, 'validation-failed');
    await expectProblem(
      await call('POST', `/orders/${order.id}/notes`, { message: 'x'.repeat(5001) }, keys.basic),
      400,
      'validation-failed',
    );
    await expectProblem(await call('GET', `/orders/${randomUUID()}/notes`), 404, 'not-found');
  });

  it('answers a note on an unknown order, or on another shop’s, with 404 and writes nothing', async () => {
    const warehouseId = await newWarehouse(other);
    const variantId = await newVariant({ fixture: other, warehouse: warehouseId, stock: '5' });
    const theirs = await arrange(
      (tx) => addOrder(tx, other.shopId, { warehouseId, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] }),
      other,
    );
    const notesOf = (orderId: string) => db.admin`select 1 from order_notes where order_id = ${orderId}`;
    await expectProblem(await call('POST', `/orders/${randomUUID()}/notes`, { message: 'lạc' }, keys.basic), 404, 'not-found');
    await expectProblem(await call('POST', `/orders/${theirs.id}/notes`, { message: 'không phải của tôi' }, keys.basic), 404, 'not-found');
    expect(await notesOf(theirs.id)).toHaveLength(0);
  });
});
