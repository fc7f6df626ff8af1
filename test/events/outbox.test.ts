import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { diffSnapshots, newEventId, pooledRandom, recordUpdate, writeEvent } from '../../domain/events/outbox.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { useSuite } from '../support/suite.js';

const product = {
  id: 'p1',
  code: 'SP01',
  name: 'Áo thun',
  updatedAt: '2026-11-22T10:00:00.000Z',
  images: [{ id: 'i1', url: 'https://cdn.test/a.jpg', variantIds: [] }],
  variants: [
    { id: 'v1', code: 'SP01-S', price: '100000', attributes: { Size: 'S' }, keywords: ['ao s'] },
    { id: 'v2', code: 'SP01-M', price: '100000', attributes: { Size: 'M' }, keywords: [] },
  ],
};

describe('changes between snapshots', () => {
  it('names changed fields in camelCase and ignores the audit time', () => {
    expect(diffSnapshots(product, { ...product, name: 'Áo thun nam', updatedAt: '2026-11-22T11:00:00.000Z' })).toEqual({
      fields: ['name'],
    });
  });

  it('is null when only data outside the snapshot changed', () => {
    expect(diffSnapshots(product, { ...product, updatedAt: '2026-11-22T12:00:00.000Z' })).toBeNull();
    expect(diffSnapshots(product, structuredClone(product))).toBeNull();
  });

  it('names variant fields as variants.<field>, a new variant as variants', () => {
    const repriced = structuredClone(product);
    repriced.variants[1]!.price = '120000';
    repriced.variants[0]!.keywords = ['ao s', 'ao size s'];
    expect(diffSnapshots(product, repriced)?.fields.sort()).toEqual(['variants.keywords', 'variants.price']);
    const grown = structuredClone(product);
    grown.variants.push({ id: 'v3', code: 'SP01-L', price: '100000', attributes: { Size: 'L' }, keywords: [] });
    expect(diffSnapshots(product, grown)).toEqual({ fields: ['variants'] });
  });

  it('names a whole collection like images, contacts or addresses when any item changed', () => {
    const reimaged = structuredClone(product);
    reimaged.images[0]!.variantIds = ['v1'] as never;
    expect(diffSnapshots(product, reimaged)).toEqual({ fields: ['images'] });
    const customer = { id: 'c1', name: 'Lan', contacts: [{ id: 'k1', kind: 'phone', value: '+84901234567', isPrimary: true }] };
    expect(
      diffSnapshots(customer, {
        ...customer,
        contacts: [...customer.contacts, { id: 'k2', kind: 'email', value: 'lan@x.vn', isPrimary: false }],
      }),
    ).toEqual({ fields: ['contacts'] });
  });

  it('adds status {from, to} when the status changed', () => {
    const order = { id: 'o1', status: 'new', note: null, paidAmount: '0' };
    expect(diffSnapshots(order, { ...order, status: 'confirmed' })).toEqual({
      fields: ['status'],
      status: { from: 'new', to: 'confirmed' },
    });
    expect(diffSnapshots(order, { ...order, note: 'gọi trước' })).toEqual({ fields: ['note'] });
  });

  it('treats key order inside values as irrelevant', () => {
    const a = { id: 'x', attributes: { Size: 'S', Color: 'Red' } };
    expect(diffSnapshots(a, { id: 'x', attributes: { Color: 'Red', Size: 'S' } })).toBeNull();
  });
});

describe('event ids', () => {
  it('are unique and in creation order across many refills of the random pool', () => {
    const ids = Array.from({ length: 5_000 }, () => newEventId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('draw their randomness from a pool that covers every letter, refills with new bytes, and never reaches 1', () => {
    const random = pooledRandom(64);
    const draws = Array.from({ length: 64 * 200 }, () => random());
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(0);
    const letters = new Set(draws.map((draw) => Math.floor(draw * 32)));
    expect(letters.size).toBe(32);
    // Each refill is new bytes, not the first pool again.
    expect(draws.slice(64, 128)).not.toEqual(draws.slice(0, 64));
  });
});

describe('outbox rows', () => {
  const { db, shop } = useSuite({ shop: true });

  const events = () =>
    withShop(
      db.app,
      shop.shopId,
      (tx) => tx<{ id: string; type: string; changes: unknown; data: unknown }[]>`select id, type, changes, data from events order by id`,
    );

  it('writes an update event with its changes in the same transaction, and none without a change', async () => {
    const resourceId = randomUUID();
    const after = { ...product, id: resourceId, name: 'Áo polo' };
    const id = await withShop(db.app, shop.shopId, (tx) =>
      recordUpdate(tx, { shopId: shop.shopId, resource: 'product', resourceId, before: { ...product, id: resourceId }, after }),
    );
    const none = await withShop(db.app, shop.shopId, (tx) =>
      recordUpdate(tx, { shopId: shop.shopId, resource: 'product', resourceId, before: after, after: { ...after, updatedAt: 'later' } }),
    );
    expect(id).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(none).toBeNull();
    expect(await events()).toEqual([{ id, type: 'product.updated', changes: { fields: ['name'] }, data: after }]);
  });

  it('writes nothing when the transaction rolls back', async () => {
    const before = (await events()).length;
    await expect(
      withShop(db.app, shop.shopId, async (tx) => {
        await writeEvent(tx, { shopId: shop.shopId, type: 'product.created', resourceId: randomUUID(), data: product });
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    expect(await events()).toHaveLength(before);
  });

  it('gives event ids that sort in creation order', async () => {
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      ids.push(
        await withShop(db.app, shop.shopId, (tx) =>
          writeEvent(tx, { shopId: shop.shopId, type: 'product.created', resourceId: randomUUID(), data: product }),
        ),
      );
    }
    expect([...ids].sort()).toEqual(ids);
  });
});
