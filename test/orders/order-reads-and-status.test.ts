import { describe, expect, it } from 'vitest';
import { changeShopStatusMatrix } from '../../domain/orders/order-status.js';
import { createShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { addCustomer } from '../../scripts/fixtures/index.js';
import { useOrderSuite, type Order } from './order-kit.js';

/** Reading orders (lists, product fields by permission) and moving them through the status matrix. */
const { db, shop, other, keys, arrange, call, newWarehouse, newVariant, stockOf, eventsOf, createOrder, setStatus } = useOrderSuite();

describe('order reads', () => {
  it('lists rows without detail fields, filtered by status, customer and exact code', async () => {
    const variantId = await newVariant({ stock: '5' });
    const customer = await arrange((tx) => addCustomer(tx, shop.shopId, { name: 'C' }));
    const order = await createOrder({
      code: 'LIST-1',
      customerId: customer.id,
      lines: [{ variantId, quantity: '1', unitPrice: '100000' }],
    });
    const byCode = (await (await call('GET', '/orders?code=LIST-1', undefined, keys.readOnly)).json()) as {
      data: Record<string, unknown>[];
    };
    expect(byCode.data.map((row) => row.id)).toEqual([order.id]);
    for (const field of ['lines', 'payments', 'shippingAddress', 'creditApplied', 'exchangeReturn'])
      expect(byCode.data[0]).not.toHaveProperty(field);
    const byCustomer = (await (await call('GET', `/orders?customerId=${customer.id}&status=new`)).json()) as { data: { id: string }[] };
    expect(byCustomer.data.map((row) => row.id)).toEqual([order.id]);
    const cancelledOnly = (await (await call('GET', `/orders?customerId=${customer.id}&status=cancelled`)).json()) as { data: unknown[] };
    expect(cancelledOnly.data).toEqual([]);
  });

  it('holds back with updatedSince what changed within the safety delay, and only with it', async () => {
    const fresh = await createShopFixture(db.app);
    const freshKey = (await fresh.newKey(['pos.orders.read', 'pos.orders.create', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(fresh);
    const variantId = await newVariant({ fixture: fresh, warehouse, stock: '5' });
    const make = async () => {
      const response = await call(
        'POST',
        '/orders',
        { warehouseId: warehouse, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] },
        freshKey,
      );
      expect(response.status, await response.clone().text()).toBe(201);
      return ((await response.json()) as { id: string }).id;
    };
    const [old, recent] = [await make(), await make()];
    await db.admin`update orders set updated_at = now() - interval '1 hour' where id = ${old}`;
    const list = async (query: string) =>
      ((await (await call('GET', `/orders?${query}`, undefined, freshKey)).json()) as { data: { id: string }[] }).data.map((row) => row.id);
    const since = new Date(Date.now() - 2 * 3600_000).toISOString();
    expect(await list(`updatedSince=${since}`)).toEqual([old]);
    expect(await list('')).toEqual([old, recent]);
  });

  it('leaves the product fields of lines out for a key without pos.products.read, and 404s another shop', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    const read = (await (await call('GET', `/orders/${order.id}`, undefined, keys.readOnly)).json()) as Order;
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
    const shipped = (await (await setStatus(order.id, 'shipped', keys.basic)).json()) as Order;
    expect(shipped.status).toBe('shipped');
    expect(await stockOf(variantId)).toEqual({ quantity: '3', reserved: '0' });
    const events = await eventsOf(order.id);
    expect(events.map((event) => [event.type, event.changes])).toEqual([
      ['order.created', null],
      ['order.status_changed', { fields: ['status'], status: { from: 'new', to: 'confirmed' } }],
      ['order.status_changed', { fields: ['status'], status: { from: 'confirmed', to: 'shipped' } }],
    ]);
    expect(events[2]!.data).toEqual(shipped);
    // One transaction, its events in the order of its work: the goods leave the stock, then the order is shipped.
    const latest = await arrange(
      (tx) => tx<{ type: string }[]>`
        select type from events where resource_id in (${order.id}, (select id from stock where variant_id = ${variantId}))
        order by id desc limit 2`,
    );
    expect(latest.map((event) => event.type)).toEqual(['order.status_changed', 'inventory.stock_changed']);
    await expectProblem(await setStatus(order.id, 'cancelled', keys.basic), 403, 'insufficient-permission');
    expect((await setStatus(order.id, 'cancelled')).status).toBe(200);
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '0' });
  });

  it('cancelling before shipping releases the reservation without pos.orders.delete', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '2', unitPrice: '100000' }] });
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '2' });
    expect((await setStatus(order.id, 'cancelled', keys.basic)).status).toBe(200);
    expect(await stockOf(variantId)).toEqual({ quantity: '5', reserved: '0' });
  });
});
