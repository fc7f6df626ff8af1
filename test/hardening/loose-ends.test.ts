import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../domain/access/permissions.js';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import { addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

const { db, shop, request } = useSuite({ api: true, shop: true });
let key: string;
let warehouseId: string;
let variantId: string;

const arrange = <T>(work: (tx: Tx) => Promise<T>) => withShop(db.app, shop.shopId, work);
const call = (method: string, path: string, body?: unknown) => request(method, path, { key, body });
const expectPath = (body: Record<string, unknown>, path: string) => expect(body.errors).toEqual([expect.objectContaining({ path })]);
async function json<T = Record<string, unknown>>(response: Response, status: number): Promise<T> {
  if (response.status !== status) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

beforeAll(async () => {
  key = (await shop.newKey([...ALL_PERMISSIONS].filter((name) => name.startsWith('pos.')))).key;
  warehouseId = await arrange((tx) => addWarehouse(tx, shop.shopId, { name: 'Main' }));
  const product = await arrange((tx) => addProduct(tx, shop.shopId, { name: 'Shirt', stock: { warehouseId, quantity: '100' } }));
  variantId = product.variants[0]!.id;
});

describe('the NUL character', () => {
  it('is 400 validation-failed with its field path, in any body field, key or query parameter', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/customers', { name: 'A\u0000B' }, 'name'],
      ['POST', '/products', { name: 'P', variants: [{ attributes: { Size: 'M\u0000' } }] }, 'variants.0.attributes.Size'],
      ['POST', '/products', { name: 'P', variants: [{ attributes: { 'Si\u0000ze': 'M' } }] }, 'variants.0.attributes.Si\\u0000ze'],
      ['POST', '/orders', { warehouseId, lines: [{ variantId, quantity: '1', unitPrice: '100000' }], note: '\u0000' }, 'note'],
      ['GET', '/customers?search=a%00b', undefined, 'search'],
      ['GET', '/orders?code=%00', undefined, 'code'],
    ];
    for (const [method, path, body, field] of cases) {
      expectPath(await expectProblem(await call(method, path, body), 400, 'validation-failed'), field);
    }
    const [row] = await arrange((tx) => tx<{ count: number }[]>`select count(*)::int as count from customers`);
    expect(row?.count).toBe(0);
  });
});

describe('values derived from input', () => {
  it('refuses a product code too long to derive its variant codes from with 400, not 500', async () => {
    const code = '0'.repeat(99);
    expectPath(
      await expectProblem(await call('POST', '/products', { code, name: '0', variants: [{}] }), 400, 'validation-failed'),
      'variants.0.code',
    );
    // With the variant's own code the same product code is fine; a later variant added without one is 400 too.
    const product = await json<{ id: string }>(await call('POST', '/products', { code, name: '0', variants: [{ code: 'V1' }] }), 201);
    const patched = await call('PATCH', `/products/${product.id}`, { variants: [{ barcode: 'B' }] });
    expectPath(await expectProblem(patched, 400, 'validation-failed'), 'variants.0.code');
    const exact = await json<{ variants: { code: string }[] }>(
      await call('POST', '/products', { code: '1'.repeat(98), name: '1', variants: [{}] }),
      201,
    );
    expect(exact.variants[0]!.code).toBe(`${'1'.repeat(98)}-1`);
  });
});

describe('orders and customers', () => {
  const newOrder = (extra: Record<string, unknown> = {}) =>
    call('POST', '/orders', { warehouseId, lines: [{ variantId, quantity: '1', unitPrice: '100000' }], ...extra });

  it('finds an order by its exact code only (GET /orders?code=)', async () => {
    const order = await json<{ id: string; code: string }>(await newOrder(), 201);
    await arrange((tx) => tx`update orders set code = 'Web-Exact-1' where id = ${order.id}`);
    const found = async (code: string) =>
      (await json<{ data: { id: string }[] }>(await call('GET', `/orders?code=${encodeURIComponent(code)}`), 200)).data.map(
        (row) => row.id,
      );
    expect(await found('Web-Exact-1')).toEqual([order.id]);
    expect(await found('web-exact-1')).toEqual([]);
    expect(await found('WEB-EXACT-1')).toEqual([]);
  });

  it('keeps updatedAt on a no-op PATCH of a customer or an order, and moves it on a real change', async () => {
    const customer = await json<{ id: string; updatedAt: string }>(
      await call('POST', '/customers', { name: 'Lan', gender: 'female' }),
      201,
    );
    const order = await json<{ id: string; updatedAt: string; note: string | null }>(
      await newOrder({ note: 'n', customerId: customer.id }),
      201,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const samePatchCustomer = await json<{ updatedAt: string }>(
      await call('PATCH', `/customers/${customer.id}`, { name: 'Lan', gender: 'female' }),
      200,
    );
    expect(samePatchCustomer.updatedAt).toBe(customer.updatedAt);
    const samePatchOrder = await json<{ updatedAt: string }>(
      await call('PATCH', `/orders/${order.id}`, {
        note: 'n',
        customerId: customer.id,
        lines: [{ variantId, quantity: '1', unitPrice: '100000' }],
      }),
      200,
    );
    expect(samePatchOrder.updatedAt).toBe(order.updatedAt);
    const events = await arrange((tx) => tx<{ type: string }[]>`select type from events where type like '%.updated'`);
    expect(events).toEqual([]);

    const changedCustomer = await json<{ updatedAt: string }>(await call('PATCH', `/customers/${customer.id}`, { name: 'Lan Anh' }), 200);
    expect(changedCustomer.updatedAt > customer.updatedAt).toBe(true);
    const changedOrder = await json<{ updatedAt: string }>(await call('PATCH', `/orders/${order.id}`, { note: 'other' }), 200);
    expect(changedOrder.updatedAt > order.updatedAt).toBe(true);
    const detail = await json<{ updatedAt: string }>(await call('GET', `/orders/${order.id}`), 200);
    expect(detail.updatedAt).toBe(changedOrder.updatedAt);
  });

  it('puts the address used on an order first among the customer addresses (last_used_at)', async () => {
    const customer = await json<{ id: string }>(await call('POST', '/customers', { name: 'Minh' }), 201);
    const first = { recipientName: 'Minh', addressLine: '1 Lê Lợi', provinceName: 'Hà Nội' };
    const second = { recipientName: 'Minh', addressLine: '2 Trần Phú', provinceName: 'Hà Nội' };
    const a = await json<{ id: string }>(await call('POST', `/customers/${customer.id}/addresses`, first), 201);
    const b = await json<{ id: string }>(await call('POST', `/customers/${customer.id}/addresses`, second), 201);
    const order = async () =>
      (await json<{ addresses: { id: string }[] }>(await call('GET', `/customers/${customer.id}`), 200)).addresses.map((x) => x.id);
    expect(await order()).toEqual([b.id, a.id]);
    const { updatedAt } = await json<{ updatedAt: string }>(await call('GET', `/customers/${customer.id}`), 200);

    const created = await json<{ id: string }>(
      await newOrder({ customerId: customer.id, shippingAddress: { ...first, addressLine: ' 1  lê lợi ' } }),
      201,
    );
    expect(await order()).toEqual([a.id, b.id]);
    await json(await call('PATCH', `/orders/${created.id}`, { shippingAddress: second }), 200);
    expect(await order()).toEqual([b.id, a.id]);
    // Each reorder changes the customer's addresses: updatedAt moves (docs/behaviour/hardening.md).
    expect((await json<{ updatedAt: string }>(await call('GET', `/customers/${customer.id}`), 200)).updatedAt > updatedAt).toBe(true);
  });
});
