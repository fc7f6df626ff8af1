import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import { createShopFixture } from '../support/fixtures.js';
import { FULL, useProductSuite, unique, type Product } from './product-kit.js';

/** Creating products: the detail shape, generated codes, attributes, categories and the limits of each field. */
const { db, shop, categoryIds, call, create, eventsOf } = useProductSuite();

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

describe('variants[].id on create', () => {
  it('makes a sent id the new variant’s id; null or an empty string has one made, as on PATCH', async () => {
    const chosen = randomUUID();
    const product = await create({
      name: 'Chosen ids',
      variants: [
        { id: chosen, attributes: { Size: 'S' } },
        { attributes: { Size: 'M' } },
        { id: null, attributes: { Size: 'L' } },
        { id: '', attributes: { Size: 'XL' } },
      ],
    });
    expect(product.variants.map((variant) => variant.id)).toEqual([chosen, expect.any(String), expect.any(String), expect.any(String)]);
    expect(new Set(product.variants.map((variant) => variant.id)).size).toBe(4);
    expect(((await (await call('GET', `/products/${product.id}`)).json()) as Product).variants[0]!.id).toBe(chosen);
    expect(((await eventsOf(product.id))[0]!.data as Product).variants[0]!.id).toBe(chosen);

    // The id is the variant's from then on: PATCH edits it; null there appends.
    const patched = await call('PATCH', `/products/${product.id}`, {
      variants: [
        { id: chosen, price: '70000' },
        { id: null, attributes: { Size: 'XXL' } },
      ],
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const after = (await patched.json()) as Product;
    expect(after.variants).toHaveLength(5);
    expect(after.variants[0]).toMatchObject({ id: chosen, price: '70000', attributes: { Size: 'S' } });
  });

  it('refuses an id sent twice with 400 on its path, and one already in use (this shop or another) with 409 conflict, creating nothing', async () => {
    const twice = randomUUID();
    const repeated = await expectProblem(
      await call('POST', '/products', {
        name: 'Twice',
        variants: [
          { id: twice, attributes: { Size: 'S' } },
          { id: twice, attributes: { Size: 'M' } },
        ],
      }),
      400,
      'validation-failed',
    );
    expect(repeated.errors).toEqual([{ path: 'variants.1.id', message: expect.stringContaining('variants.0') }]);

    const existing = await create({ name: 'Holder', variants: [{}] });
    const theirs = await create({ name: 'Theirs', variants: [{}] }, (await (await createShopFixture(db.app)).newKey(FULL)).key);
    for (const id of [existing.variants[0]!.id, theirs.variants[0]!.id]) {
      const code = `ID-${unique()}`;
      const body = await expectProblem(
        await call('POST', '/products', {
          code,
          name: 'Taken id',
          variants: [{ attributes: { Size: 'S' } }, { id, attributes: { Size: 'M' } }],
        }),
        409,
        'conflict',
      );
      expect(body.detail).toContain(`variants.1.id ${id} is already in use`);
      expect(body.detail).not.toContain('Theirs');
      // Nothing was made: the code is still free.
      await create({ code, name: 'Taken id', variants: [{}] });
    }
  });
});
