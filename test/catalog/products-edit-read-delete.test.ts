import { describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { useProductSuite, FULL, unique, type Product } from './product-kit.js';

/** Editing, reading and deleting products. */
const { db, shop, categoryIds, call, create, eventsOf } = useProductSuite();

describe('editing products', () => {
  it('patches one variant’s field, keeps the others, and names variants.<field> in the event', async () => {
    const product = await create({
      name: 'Patchable',
      variants: [
        { attributes: { Size: 'S' }, price: '100', keywords: [`p ${unique()}`] },
        { attributes: { Size: 'M' }, price: '100' },
      ],
    });
    const [small, medium] = product.variants;
    const response = await call('PATCH', `/products/${product.id}`, { variants: [{ id: medium!.id, price: '120' }] });
    expect(response.status).toBe(200);
    const patched = (await response.json()) as Product;
    expect(patched.variants).toEqual([small, { ...medium, price: '120' }]);
    const events = await eventsOf(product.id);
    expect(events.at(-1)).toMatchObject({ type: 'product.updated', changes: { fields: ['variants.price'] } });
  });

  it('keeps keywords when absent, replaces them with an array, clears them with []', async () => {
    const keyword = `kw ${unique()}`;
    const product = await create({ name: 'Keywords', variants: [{ keywords: [keyword] }] });
    const id = product.variants[0]!.id;
    const patch = async (variant: Record<string, unknown>) =>
      ((await (await call('PATCH', `/products/${product.id}`, { variants: [{ id, ...variant }] })).json()) as Product).variants[0]!
        .keywords;
    expect(await patch({ price: '5' })).toEqual([keyword]);
    expect(await patch({ keywords: [`${keyword} b`, `${keyword} c`] })).toEqual([`${keyword} b`, `${keyword} c`]);
    expect(await patch({ keywords: [] })).toEqual([]);
    // A cleared keyword is free again for another product.
    await create({ name: 'Takes it', variants: [{ keywords: [`${keyword} b`] }] });
  });

  it('appends a variant sent without id and refuses one that repeats a stored combination', async () => {
    const product = await create({ name: 'Growing', variants: [{ attributes: { Size: 'S' } }] });
    const grown = (await (
      await call('PATCH', `/products/${product.id}`, { variants: [{ attributes: { Size: 'L' }, price: '10' }] })
    ).json()) as Product;
    expect(grown.variants.map((variant) => variant.attributes)).toEqual([{ Size: 'S' }, { Size: 'L' }]);
    const body = await expectProblem(
      await call('PATCH', `/products/${product.id}`, { variants: [{ attributes: { size: 'l' } }] }),
      409,
      'variant-combo-duplicate',
    );
    expect(body.detail).toMatch(/stored variant/);
    const events = await eventsOf(product.id);
    expect(events.map((event) => [event.type, event.changes])).toEqual([
      ['product.created', null],
      ['product.updated', { fields: ['variants'] }],
    ]);
  });

  it('refuses a variant id of another product with 400, and fields PATCH does not take', async () => {
    const product = await create({ name: 'Strict', variants: [{}] });
    const other = await create({ name: 'Other', variants: [{}] });
    await expectProblem(
      await call('PATCH', `/products/${product.id}`, { variants: [{ id: other.variants[0]!.id, price: '1' }] }),
      400,
      'validation-failed',
    );
    await expectProblem(await call('PATCH', `/products/${product.id}`, { code: 'NEW' }), 400, 'validation-failed');
  });

  it('sends nothing and keeps updatedAt when nothing in the product’s data changed', async () => {
    const product = await create({ name: 'Same', categoryIds: [categoryIds[0]], variants: [{ price: '9' }] });
    const listed = async () =>
      ((await (await call('GET', `/products?search=${product.code}`)).json()) as { data: { updatedAt: string }[] }).data[0]!.updatedAt;
    const before = await listed();
    expect(
      (
        await call('PATCH', `/products/${product.id}`, {
          name: 'Same',
          categoryIds: [categoryIds[0]],
          variants: [{ id: product.variants[0]!.id, price: '9.000' }],
        })
      ).status,
    ).toBe(200);
    expect(await listed()).toBe(before);
    expect((await eventsOf(product.id)).map((event) => event.type)).toEqual(['product.created']);
    expect((await call('PATCH', `/products/${product.id}`, { categoryIds })).status).toBe(200);
    expect((await eventsOf(product.id)).at(-1)?.changes).toEqual({ fields: ['categoryIds'] });
    expect(await listed()).not.toBe(before);
  });
});

describe('reading and deleting products', () => {
  it('lists rows with price range, variant count, category names and the first image', async () => {
    const product = await create({
      name: `Listed ${unique()}`,
      categoryIds,
      variants: [
        { attributes: { Size: 'S' }, price: '90000' },
        { attributes: { Size: 'M' }, price: '120000.5' },
      ],
    });
    await withShop(
      db.app,
      shop.shopId,
      (tx) => tx`
      insert into product_images (shop_id, product_id, url, variant_ids, position)
      values (${shop.shopId}, ${product.id}, 'https://cdn.shopflow.test/v.jpg', ${[product.variants[0]!.id]}, 0),
             (${shop.shopId}, ${product.id}, 'https://cdn.shopflow.test/shared.jpg', '{}', 1)`,
    );
    const page = (await (await call('GET', `/products?search=${encodeURIComponent(product.code.toLowerCase())}`)).json()) as {
      data: Record<string, unknown>[];
    };
    expect(page.data).toEqual([
      {
        id: product.id,
        code: product.code,
        name: product.name,
        type: 'simple',
        isActive: true,
        categoryNames: ['Áo', 'Nam'],
        variantCount: 2,
        imageUrl: 'https://cdn.shopflow.test/shared.jpg',
        priceFrom: '90000',
        priceTo: '120000.5',
        updatedAt: expect.stringMatching(/Z$/),
        deletedAt: null,
      },
    ]);
    const detail = (await (await call('GET', `/products/${product.id}`)).json()) as { images: unknown[] };
    expect(detail.images).toEqual([
      { id: expect.any(String), url: 'https://cdn.shopflow.test/v.jpg', kind: 'image', variantIds: [product.variants[0]!.id] },
      { id: expect.any(String), url: 'https://cdn.shopflow.test/shared.jpg', kind: 'image', variantIds: [] },
    ]);
    const byCategory = (await (await call('GET', `/products?categoryId=${categoryIds[1]}&limit=100`)).json()) as { data: { id: string }[] };
    expect(byCategory.data.map((row) => row.id)).toContain(product.id);
  });

  it('soft-deletes with pos.products.delete, emits product.deleted, and hides it from lists unless asked', async () => {
    const product = await create({ name: `Doomed ${unique()}`, variants: [{}] });
    const noDelete = (await shop.newKey(['pos.products.read', 'pos.products.update'])).key;
    await expectProblem(await call('DELETE', `/products/${product.id}`, undefined, noDelete), 403, 'insufficient-permission');
    const response = await call('DELETE', `/products/${product.id}`);
    expect(response.status).toBe(200);
    const deleted = (await response.json()) as { deletedAt: string };
    expect(deleted.deletedAt).toMatch(/Z$/);
    const events = await eventsOf(product.id);
    expect(events.map((event) => event.type)).toEqual(['product.created', 'product.deleted']);
    // The answer is the record product.deleted carries, and what a read returns afterwards.
    expect(deleted).toEqual(events.at(-1)!.data);
    expect(await (await call('GET', `/products/${product.id}`)).json()).toEqual(deleted);
    const search = async (extra: string) =>
      ((await (await call('GET', `/products?search=${product.code}${extra}`)).json()) as { data: unknown[] }).data;
    expect(await search('')).toHaveLength(0);
    expect(await search('&includeDeleted=true')).toHaveLength(1);
    await expectProblem(await call('DELETE', `/products/${product.id}`), 404, 'not-found');
    await expectProblem(await call('PATCH', `/products/${product.id}`, { name: 'Back' }), 404, 'not-found');
  });

  it('changes a variant’s combination when sent with its id and attributes, keeping its id and its siblings', async () => {
    const product = await create({
      name: 'Recombined',
      variants: [
        { attributes: { Size: 'S', Color: 'Đỏ' }, price: '100' },
        { attributes: { Size: 'M', Color: 'Đỏ' }, price: '100' },
      ],
    });
    const [small, medium] = product.variants;
    const response = await call('PATCH', `/products/${product.id}`, {
      variants: [{ id: small!.id, attributes: { Size: 'S', Color: 'Xanh' } }],
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const patched = (await response.json()) as Product;
    expect(patched.variants.map((variant) => [variant.id, variant.attributes])).toEqual([
      [small!.id, { Size: 'S', Color: 'Xanh' }],
      [medium!.id, { Size: 'M', Color: 'Đỏ' }],
    ]);
    expect((await (await call('GET', `/products/${product.id}`)).json()) as Product).toMatchObject({ variants: patched.variants });
    expect((await eventsOf(product.id)).at(-1)).toMatchObject({ type: 'product.updated' });
    // Onto a sibling's combination: refused, nothing changed.
    await expectProblem(
      await call('PATCH', `/products/${product.id}`, { variants: [{ id: small!.id, attributes: { Size: 'M', Color: 'Đỏ' } }] }),
      409,
      'variant-combo-duplicate',
    );
    expect(((await (await call('GET', `/products/${product.id}`)).json()) as Product).variants).toEqual(patched.variants);
  });

  it('holds back with updatedSince what changed within the safety delay, and only with it', async () => {
    const other = await createShopFixture(db.app);
    const otherKey = (await other.newKey(FULL)).key;
    const [old, recent] = [
      await create({ name: 'Old', variants: [{}] }, otherKey),
      await create({ name: 'Recent', variants: [{}] }, otherKey),
    ];
    await db.admin`update products set updated_at = now() - interval '1 hour' where id = ${old.id}`;
    const list = async (query: string) =>
      ((await (await call('GET', `/products?${query}`, undefined, otherKey)).json()) as { data: { id: string }[] }).data.map(
        (row) => row.id,
      );
    const since = new Date(Date.now() - 2 * 3600_000).toISOString();
    expect(await list(`updatedSince=${since}`)).toEqual([old.id]);
    expect(await list('')).toEqual([old.id, recent.id]);
  });

  it('answers another shop’s product with 404', async () => {
    const other = await createShopFixture(db.app);
    const theirs = await create({ name: 'Theirs', variants: [{}] }, (await other.newKey(FULL)).key);
    await expectProblem(await call('GET', `/products/${theirs.id}`), 404, 'not-found');
  });
});
