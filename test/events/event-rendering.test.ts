import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';
import type { ReceivedRequest } from '../../simulators/webhook-receiver.js';
import { envelope, type StoredEvent } from '../../domain/events/event-catalogue.js';
import { type FlowInput } from '../../domain/flows/flows.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { addProduct, addWarehouse } from '../../scripts/fixtures/index.js';

/**
 * What a flow's webhook carries (spec, Events): the data its own account may read — the product
 * fields of order lines only with pos.products.read — and `changes` only on update events.
 * Through the real API, outbox, relay, delivery workflow and receiver.
 */

const { db, receiver, shop, request } = useSuite({ api: true, shop: true, receiver: true, worker: true, relay: true });
/** Every permission these tests need, products read included. */
let fullKey: string;
/** Reads orders only: what a flow account without pos.products.read may see. */
let ordersOnlyKey: string;
let warehouseId: string;
let variantId: string;

beforeAll(async () => {
  fullKey = (
    await shop.newKey([
      'pos.orders.read',
      'pos.orders.create',
      'pos.orders.update',
      'pos.products.read',
      'pos.products.create',
      'pos.customers.read',
      'pos.customers.create',
    ])
  ).key;
  ordersOnlyKey = (await shop.newKey(['pos.orders.read'])).key;
  ({ warehouseId, variantId } = await withShop(db.app, shop.shopId, async (tx) => {
    const warehouse = await addWarehouse(tx, shop.shopId, { name: 'Main' });
    const product = await addProduct(tx, shop.shopId, {
      name: `Áo sơ mi ${randomBytes(3).toString('hex')}`,
      price: '250000',
      variants: [{ Size: 'L' }],
      stock: { warehouseId: warehouse, quantity: '100' },
    });
    return { warehouseId: warehouse, variantId: product.variants[0]!.id };
  }));
});
const call = (method: string, path: string, body?: unknown, key = fullKey) => request(method, path, { key, body });

async function json<T = Record<string, unknown>>(response: Response, status: number): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

async function flow(input: Partial<FlowInput> & { eventType: string }): Promise<{ inbox: string; flowId: string }> {
  const inbox = randomUUID();
  const { flowId } = await shop.newFlow({ name: 'Rendering', url: receiver.url(inbox), state: 'on', ...input });
  return { inbox, flowId };
}

interface Envelope {
  id: string;
  type: string;
  changes?: unknown;
  data: Record<string, unknown> & { lines?: Record<string, unknown>[] };
}

const parse = (request: ReceivedRequest | undefined) => JSON.parse(request!.body) as Envelope;

describe('event data rendered per flow account', () => {
  it('sends order-line product fields only to a flow whose account holds pos.products.read; order.created has no changes', async () => {
    const blind = await flow({ eventType: 'order.created' });
    const sighted = await flow({ eventType: 'order.created', permissions: ['pos.orders.read', 'pos.products.read'] });
    const order = await json<{ id: string }>(
      await call('POST', '/orders', { warehouseId, lines: [{ variantId, quantity: '2', unitPrice: '250000' }] }),
      201,
    );

    const [[toBlind], [toSighted]] = await Promise.all([receiver.waitFor(blind.inbox, 1), receiver.waitFor(sighted.inbox, 1)]);
    const [blindEnvelope, sightedEnvelope] = [parse(toBlind), parse(toSighted)];
    expect(blindEnvelope.id).toBe(sightedEnvelope.id);
    for (const received of [blindEnvelope, sightedEnvelope]) {
      expect(received).toMatchObject({ type: 'order.created', data: { id: order.id } });
      expect(received).not.toHaveProperty('changes');
    }
    // Each flow gets the order exactly as a key with its account's permissions reads it.
    expect(sightedEnvelope.data).toEqual(await json(await call('GET', `/orders/${order.id}`), 200));
    expect(blindEnvelope.data).toEqual(await json(await call('GET', `/orders/${order.id}`, undefined, ordersOnlyKey), 200));
    expect(sightedEnvelope.data.lines).toEqual([
      expect.objectContaining({
        variantId,
        variantCode: expect.any(String),
        variantName: expect.any(String),
        productName: expect.stringMatching(/^Áo sơ mi/),
      }),
    ]);
    expect(blindEnvelope.data.lines).toHaveLength(1);
    for (const field of ['variantCode', 'variantName', 'productName']) expect(blindEnvelope.data.lines![0]).not.toHaveProperty(field);
    expect(blindEnvelope.data.lines![0]).toMatchObject({ variantId, quantity: '2', unitPrice: '250000' });
  });

  it('renders order.updated per account too, with its changes', async () => {
    const order = await json<{ id: string }>(
      await call('POST', '/orders', { warehouseId, lines: [{ variantId, quantity: '1', unitPrice: '250000' }] }),
      201,
    );
    const blind = await flow({ eventType: 'order.updated' });
    const sighted = await flow({ eventType: 'order.updated', permissions: ['pos.orders.read', 'pos.products.read'] });
    await json(await call('PATCH', `/orders/${order.id}`, { note: 'gift wrap' }), 200);

    const [[toBlind], [toSighted]] = await Promise.all([receiver.waitFor(blind.inbox, 1), receiver.waitFor(sighted.inbox, 1)]);
    const [blindEnvelope, sightedEnvelope] = [parse(toBlind), parse(toSighted)];
    for (const received of [blindEnvelope, sightedEnvelope])
      expect(received).toMatchObject({ type: 'order.updated', changes: { fields: ['note'] }, data: { id: order.id, note: 'gift wrap' } });
    expect(sightedEnvelope.data).toEqual(await json(await call('GET', `/orders/${order.id}`), 200));
    expect(blindEnvelope.data).toEqual(await json(await call('GET', `/orders/${order.id}`, undefined, ordersOnlyKey), 200));
    for (const field of ['variantCode', 'variantName', 'productName']) expect(blindEnvelope.data.lines![0]).not.toHaveProperty(field);
  });

  it('sends product.created and customer.created without a changes key', async () => {
    const products = await flow({ eventType: 'product.created' });
    const customers = await flow({ eventType: 'customer.created' });
    const product = await json<{ id: string }>(
      await call('POST', '/products', { name: `Quần ${randomBytes(3).toString('hex')}`, variants: [{ price: '1000' }] }),
      201,
    );
    const customer = await json<{ id: string }>(await call('POST', '/customers', { name: 'Ngô Bảo' }), 201);
    const [[productRequest], [customerRequest]] = await Promise.all([
      receiver.waitFor(products.inbox, 1),
      receiver.waitFor(customers.inbox, 1),
    ]);
    const [productEnvelope, customerEnvelope] = [parse(productRequest), parse(customerRequest)];
    expect(productEnvelope).toMatchObject({ type: 'product.created', data: { id: product.id } });
    expect(customerEnvelope).toMatchObject({ type: 'customer.created', data: { id: customer.id } });
    expect(Object.keys(productEnvelope).sort()).toEqual(['apiVersion', 'createdAt', 'data', 'id', 'shop', 'type']);
    expect(Object.keys(customerEnvelope).sort()).toEqual(['apiVersion', 'createdAt', 'data', 'id', 'shop', 'type']);
  });
});

describe('envelope()', () => {
  const line = {
    id: randomUUID(),
    variantId: randomUUID(),
    productId: randomUUID(),
    variantCode: 'SKU-1',
    variantName: 'L',
    productName: 'Shirt',
    quantity: '1',
    unitPrice: '10',
    discount: '0',
    lineTotal: '10',
    returnedQuantity: '0',
  };
  const event = (type: StoredEvent['type'], changes: StoredEvent['changes']): StoredEvent => ({
    id: 'evt_01J00000000000000000000000',
    type,
    createdAt: new Date('2026-01-02T03:04:05.678Z'),
    changes,
    data: { id: randomUUID(), status: 'cancelled', lines: [line] },
  });
  const render = (stored: StoredEvent, permissions: string[]) =>
    JSON.parse(envelope(stored, { id: shop.shopId, slug: shop.slug }, permissions)) as Envelope;

  it('strips the product fields of order lines for every order event type without pos.products.read', () => {
    const { variantCode: _code, variantName: _name, productName: _product, ...bare } = line;
    for (const type of ['order.created', 'order.updated', 'order.status_changed', 'order.deleted'] as const) {
      const stored = event(type, type === 'order.created' ? null : { fields: ['status'], status: { from: 'new', to: 'cancelled' } });
      expect(render(stored, ['pos.orders.read']).data.lines, type).toEqual([bare]);
      expect(render(stored, ['pos.orders.read', 'pos.products.read']).data.lines, type).toEqual([line]);
    }
  });

  it('has changes only when the event has them', () => {
    expect(render(event('order.created', null), ['pos.orders.read'])).not.toHaveProperty('changes');
    expect(
      render(event('order.status_changed', { fields: ['status'], status: { from: 'new', to: 'cancelled' } }), ['pos.orders.read']).changes,
    ).toEqual({ fields: ['status'], status: { from: 'new', to: 'cancelled' } });
  });
});
