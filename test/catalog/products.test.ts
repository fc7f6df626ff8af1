import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { MAX_VARIANTS } from '../../domain/catalog/product-rules.js';
import { withShop } from '../../domain/kernel/tenancy.js';

const { db, shop, request } = useSuite({ api: true, shop: true });
let key: string;
let categoryIds: string[];

const FULL = ['pos.products.read', 'pos.products.create', 'pos.products.update', 'pos.products.delete'];

beforeAll(async () => {
  key = (await shop.newKey(FULL)).key;
  categoryIds = (
    await withShop(
      db.app,
      shop.shopId,
      (tx) =>
        tx<{ id: string }[]>`insert into categories (shop_id, name) values (${shop.shopId}, 'Áo'), (${shop.shopId}, 'Nam') returning id`,
    )
  ).map((row) => row.id);
});

type Product = {
  id: string;
  code: string;
  variants: { id: string; code: string; price: string; attributes: Record<string, string>; keywords: string[] }[];
} & Record<string, unknown>;

const call = (method: string, path: string, body?: unknown, withKey = key) => request(method, path, { key: withKey, body });

async function create(body: Record<string, unknown>, withKey = key): Promise<Product> {
  const response = await call('POST', '/products', body, withKey);
  if (response.status !== 201) throw new Error(`${response.status} ${await response.text()}`);
  return (await response.json()) as Product;
}

const unique = () => randomUUID().slice(0, 8).toUpperCase();

const eventsOf = (resourceId: string) =>
  withShop(
    db.app,
    shop.shopId,
    (tx) =>
      tx<
        { type: string; changes: unknown; data: unknown }[]
      >`select type, changes, data from events where resource_id = ${resourceId} order by id`,
  );

describe('creating products', () => {
  it('creates a product with variants in the detail shape, emitting only product.created', async () => {
    const code = `AT-${unique()}`;
    const product = await create({
      code,
      name: 'Áo thun cổ tròn',
      description: 'Cotton 100%',
      categoryIds,
      variants: [
        { code: `${code}-S`, price: '150000', weightGrams: '200.5', attributes: { Size: 'S', Màu: 'Đỏ' }, keywords: [`${code} s`] },
        { code: `${code}-M`, price: '165000.000', attributes: { Màu: 'Đỏ', Size: 'M' } },
      ],
    });
    expect(product).toEqual({
      id: expect.any(String),
      code,
      name: 'Áo thun cổ tròn',
      description: 'Cotton 100%',
      type: 'simple',
      isActive: true,
      categoryIds,
      variants: [
        {
          id: expect.any(String),
          code: `${code}-S`,
          barcode: null,
          price: '150000',
          weightGrams: '200.5',
          lengthCm: null,
          widthCm: null,
          heightCm: null,
          isActive: true,
          attributes: { Size: 'S', Màu: 'Đỏ' },
          keywords: [`${code} s`],
        },
        {
          id: expect.any(String),
          code: `${code}-M`,
          barcode: null,
          price: '165000',
          weightGrams: null,
          lengthCm: null,
          widthCm: null,
          heightCm: null,
          isActive: true,
          attributes: { Size: 'M', Màu: 'Đỏ' },
          keywords: [],
        },
      ],
      images: [],
      createdAt: expect.stringMatching(/Z$/),
      deletedAt: null,
    });
    // Attribute order follows the first variant's keys.
    expect(Object.keys(product.variants[1]!.attributes)).toEqual(['Size', 'Màu']);
    const events = await eventsOf(product.id);
    expect(events).toEqual([{ type: 'product.created', changes: null, data: product }]);
  });

  it('generates product and variant codes when empty', async () => {
    const product = await create({ name: 'Dịch vụ may đo', type: 'service', variants: [{ price: '50000' }] });
    expect(product.code).toMatch(/^SP[0-9A-F]{8}$/);
    expect(product.variants[0]!.code).toBe(`${product.code}-1`);
  });

  it('matches attribute names and values case-insensitively, keeping the shop’s spelling', async () => {
    await create({ name: 'Quần', variants: [{ attributes: { Size: 'XL' } }] });
    const second = await create({ name: 'Quần 2', variants: [{ attributes: { SIZE: 'xl' } }] });
    expect(second.variants[0]!.attributes).toEqual({ Size: 'XL' });
  });

  it('needs pos.products.update to add attribute names or values not yet in the shop', async () => {
    const creatorOnly = (await shop.newKey(['pos.products.read', 'pos.products.create'])).key;
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Mũ', variants: [{ attributes: { 'Chất liệu': 'Len' } }] }, creatorOnly),
      403,
      'insufficient-permission',
    );
    expect(body.detail).toMatch(/Chất liệu/);
    await create({ name: 'Mũ', variants: [{ attributes: { Size: 'xl' } }] }, creatorOnly);
  });

  it('refuses two variants sharing a combination with 409 variant-combo-duplicate', async () => {
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Dup', variants: [{ attributes: { Size: 'S' } }, { attributes: { size: 's ' } }] }),
      409,
      'variant-combo-duplicate',
    );
    expect(body.detail).toMatch(/Size=S/);
    await expectProblem(await call('POST', '/products', { name: 'Dup', variants: [{}, {}] }), 409, 'variant-combo-duplicate');
  });

  it('refuses a category absent from the shop with 400, detail only, naming the path and the id', async () => {
    const missing = randomUUID();
    const body = await expectAbsentReference(
      await call('POST', '/products', { name: 'K', categoryIds: [categoryIds[0], missing], variants: [{}] }),
      'categoryIds.1',
      missing,
    );
    expect(body.detail).not.toContain(categoryIds[0]);
  });

  it('enforces the attribute and keyword limits with 400', async () => {
    const eleven = Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`A${index}`, 'x']));
    await expectProblem(await call('POST', '/products', { name: 'Many', variants: [{ attributes: eleven }] }), 400, 'validation-failed');
    const tooMany = Array.from({ length: 21 }, (_, index) => `kw-${unique()}-${index}`);
    await expectProblem(await call('POST', '/products', { name: 'K', variants: [{ keywords: tooMany }] }), 400, 'validation-failed');
    await expectProblem(
      await call('POST', '/products', { name: 'K', variants: [{ keywords: ['x'.repeat(51)] }] }),
      400,
      'validation-failed',
    );
    await expectProblem(await call('POST', '/products', { name: 'K', variants: [{ keywords: ['two\nlines'] }] }), 400, 'validation-failed');
    await expectProblem(await call('POST', '/products', { name: 'K', variants: [{ keywords: [' '] }] }), 400, 'validation-failed');
    await expectProblem(await call('POST', '/products', { name: 'K', variants: [] }), 400, 'validation-failed');
    await expectProblem(await call('POST', '/products', { name: 'K', variants: [{ price: '-1' }] }), 400, 'validation-failed');
  });

  it('refuses a price with more than three decimals with 400 and the field path, never rounding it', async () => {
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Precise', variants: [{ price: '1.2345' }] }),
      400,
      'validation-failed',
    );
    expect(body.errors).toEqual([{ path: 'variants.0.price', message: expect.stringContaining('3 after') }]);
    const product = await create({ name: 'Precise', variants: [{ price: '1.5' }] });
    const patched = await expectProblem(
      await call('PATCH', `/products/${product.id}`, { variants: [{ id: product.variants[0]!.id, price: '1.2345' }] }),
      400,
      'validation-failed',
    );
    expect(patched.errors).toEqual([{ path: 'variants.0.price', message: expect.any(String) }]);
    expect(((await (await call('GET', `/products/${product.id}`)).json()) as Product).variants[0]!.price).toBe('1.5');
  });

  it('refuses a price, weight or dimension beyond its column with 400, not 500, and takes the largest that fits', async () => {
    const oversized: [string, string][] = [
      ['price', '1234567890123456'],
      ['weightGrams', '1234567890'],
      ['lengthCm', '12345678'],
      ['widthCm', '12345678.5'],
      ['heightCm', '99999999'],
    ];
    for (const [field, value] of oversized) {
      const body = await expectProblem(
        await call('POST', '/products', { name: 'Huge', variants: [{ [field]: value }] }),
        400,
        'validation-failed',
      );
      expect(body.errors, `${field}: ${value}`).toEqual([
        { path: `variants.0.${field}`, message: expect.stringContaining('digits before the point') },
      ]);
    }
    const largest = {
      price: '999999999999999.999',
      weightGrams: '999999999.999',
      lengthCm: '9999999.999',
      widthCm: '9999999.999',
      heightCm: '9999999.999',
    };
    const product = await create({ name: 'Largest', variants: [largest] });
    expect(product.variants[0]).toMatchObject(largest);
  });
});

describe('the match-key registry', () => {
  it('refuses a product code already used with 409 duplicate-code, case-insensitively', async () => {
    const code = `DUP-${unique()}`;
    await create({ code, name: 'First', variants: [{}] });
    await expectProblem(
      await call('POST', '/products', { code: code.toLowerCase(), name: 'Second', variants: [{}] }),
      409,
      'duplicate-code',
    );
  });

  it('refuses a variant code used by another variant with 409 duplicate-code', async () => {
    const first = await create({ name: 'Has variant', variants: [{ code: `V-${unique()}` }] });
    await expectProblem(
      await call('POST', '/products', { name: 'Copies it', variants: [{ code: first.variants[0]!.code }] }),
      409,
      'duplicate-code',
    );
  });

  it('refuses a keyword of another variant, or one repeated in the request, with 409 variant-keyword-taken', async () => {
    const keyword = `ao ${unique()}`;
    await create({ name: 'Owner', variants: [{ keywords: [keyword] }] });
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Thief', variants: [{ keywords: [keyword.toUpperCase()] }] }),
      409,
      'variant-keyword-taken',
    );
    expect(body.detail).toContain(keyword.toUpperCase());
    expect(body.detail).toContain('Owner');
    const twice = `twice ${unique()}`;
    await expectProblem(
      await call('POST', '/products', {
        name: 'Twice',
        variants: [
          { attributes: { Size: 'S' }, keywords: [twice] },
          { attributes: { Size: 'M' }, keywords: [twice] },
        ],
      }),
      409,
      'variant-keyword-taken',
    );
  });

  it('refuses a keyword equal to another product’s code with 409 match-key-taken and matchKeys', async () => {
    const code = `MK-${unique()}`;
    await create({ code, name: 'Code holder', variants: [{}] });
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Keyword', variants: [{ keywords: [code.toLowerCase()] }] }),
      409,
      'match-key-taken',
    );
    expect(body.matchKeys).toEqual([{ key: code.toLowerCase(), source: 'product_code', productName: 'Code holder' }]);
    const variantCode = `${code}-1`;
    const clash = await expectProblem(
      await call('POST', '/products', { code: variantCode, name: 'Code clash', variants: [{}] }),
      409,
      'match-key-taken',
    );
    expect(clash.matchKeys).toEqual([{ key: variantCode, source: 'variant_code', productName: 'Code holder' }]);
  });

  it('allows a keyword equal to its own variant code and a variant code equal to its own product code', async () => {
    const code = `OWN-${unique()}`;
    const sameCode = await create({ code, name: 'Own product code', variants: [{ code }] });
    expect(sameCode.variants[0]!.code).toBe(code);
    const variantCode = `VAR-${unique()}`;
    const ownKeyword = await create({ name: 'Own variant code', variants: [{ code: variantCode, keywords: [variantCode.toLowerCase()] }] });
    expect(ownKeyword.variants[0]).toMatchObject({ code: variantCode, keywords: [variantCode.toLowerCase()] });
    // Another variant may not take a code as its keyword.
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Not own', variants: [{ keywords: [code] }] }),
      409,
      'match-key-taken',
    );
    expect(body.matchKeys).toEqual([
      { key: code, source: 'product_code', productName: 'Own product code' },
      { key: code, source: 'variant_code', productName: 'Own product code' },
    ]);
  });

  it('tells keys apart only by case: "A12 M" and "A12-M" differ', async () => {
    const suffix = unique();
    await create({ name: 'Spaced', variants: [{ keywords: [`A12 M ${suffix}`] }] });
    await create({ name: 'Dashed', variants: [{ keywords: [`A12-M ${suffix}`] }] });
  });
});

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

  it(`caps a product at ${MAX_VARIANTS} variants: on create, and on PATCH counting stored and appended ones`, async () => {
    // Two attributes, so that no attribute comes near its own limit of 100 values.
    const variants = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => ({
        attributes: { Size: `S${(from + index) % 10}`, Màu: `C${Math.floor((from + index) / 10)}` },
      }));
    const expectVariantsRefused = async (response: Response) => {
      const body = await expectProblem(response, 400, 'validation-failed');
      expect(body.errors).toEqual([{ path: 'variants', message: expect.any(String) }]);
    };
    await expectVariantsRefused(await call('POST', '/products', { name: 'Too many', variants: variants(0, MAX_VARIANTS + 1) }));

    const product = await create({ name: 'Nearly full', variants: variants(0, 60) });
    await expectVariantsRefused(await call('PATCH', `/products/${product.id}`, { variants: variants(60, MAX_VARIANTS - 60 + 1) }));
    const full = await call('PATCH', `/products/${product.id}`, { variants: variants(60, MAX_VARIANTS - 60) });
    expect(((await full.json()) as Product).variants).toHaveLength(MAX_VARIANTS);
    await expectVariantsRefused(await call('PATCH', `/products/${product.id}`, { variants: variants(MAX_VARIANTS, 1) }));
    // Editing a variant of a full product appends nothing.
    expect((await call('PATCH', `/products/${product.id}`, { variants: [{ id: product.variants[0]!.id, price: '1' }] })).status).toBe(200);
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

  it('answers another shop’s product with 404', async () => {
    const other = await createShopFixture(db.app);
    const theirs = await create({ name: 'Theirs', variants: [{}] }, (await other.newKey(FULL)).key);
    await expectProblem(await call('GET', `/products/${theirs.id}`), 404, 'not-found');
  });
});
