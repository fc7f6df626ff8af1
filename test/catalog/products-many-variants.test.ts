import { describe, expect, it } from 'vitest';
import { PRODUCT_BODY_LIMIT_BYTES } from '../../api/routes/catalog/products.js';
import { MAX_PRODUCT_EVENT_BYTES, MAX_VARIANTS } from '../../domain/catalog/product-rules.js';
import { expectProblem } from '../support/problems.js';
import { useProductSuite, unique, type Product } from './product-kit.js';

/**
 * Products of thousands of variants (sizes × colours): written, read, listed and patched through
 * the API, up to the limit of MAX_VARIANTS and not past it.
 */
const { call, create } = useProductSuite();

const SIZES = 20;
const COLOURS = 100;
/** What customers type to order a variant, after its code. */
const PHRASES = ['đặt hàng', 'mua ngay', 'chốt đơn', 'lấy 1', 'lấy 2', 'còn không', 'giá bao nhiêu', 'ship cod', 'có sẵn không'];

/** Variant `n` of a catalog of sizes × colours, as a shop's import would send it: codes, a barcode, dimensions, eleven keywords. */
function variant(code: string, n: number) {
  const size = `S${n % SIZES}`;
  const colour = `Màu ${Math.floor(n / SIZES) % COLOURS}`;
  const sku = `${code}-${n}`;
  return {
    code: sku,
    barcode: String(8_930_000_000_000 + n),
    price: String(100_000 + n * 10),
    weightGrams: '250',
    lengthCm: '30',
    widthCm: '20',
    heightCm: '2',
    isActive: true,
    // A third attribute past 2,000, so no attribute reaches its own limit of 100 values.
    attributes: {
      Size: size,
      Màu: colour,
      'Chất liệu': 'Cotton 100%',
      ...(n >= SIZES * COLOURS ? { Lô: `L${Math.floor(n / (SIZES * COLOURS))}` } : {}),
    },
    keywords: [...PHRASES, `size ${size}`, colour.toLowerCase()].map((phrase) => `${sku} ${phrase}`),
  };
}

const variants = (code: string, from: number, count: number) => Array.from({ length: count }, (_, offset) => variant(code, from + offset));

describe(`products of up to ${MAX_VARIANTS} variants`, () => {
  it('creates, reads, lists and patches a product of 2,000 variants whose body is over 1 MiB', async () => {
    const code = `BIG-${unique()}`;
    const body = { code, name: 'Áo thun 20 size × 100 màu', variants: variants(code, 0, 2_000) };
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(1024 * 1024);

    const created = await call('POST', '/products', body);
    expect(created.status, await created.clone().text()).toBe(201);
    const product = (await created.json()) as Product;
    expect(product.variants).toHaveLength(2_000);
    expect(product.variants[1_999]).toMatchObject({
      code: `${code}-1999`,
      price: '119990',
      attributes: { Size: 'S19', Màu: 'Màu 99', 'Chất liệu': 'Cotton 100%' },
      keywords: variant(code, 1_999).keywords,
    });

    expect(await (await call('GET', `/products/${product.id}`)).json()).toEqual(product);
    const listed = (await (await call('GET', `/products?search=${code}`)).json()) as { data: Record<string, unknown>[] };
    expect(listed.data).toEqual([expect.objectContaining({ id: product.id, variantCount: 2_000, priceFrom: '100000', priceTo: '119990' })]);

    // One edit and 48 appended (codes generated) reach the limit exactly.
    const appended = variants(code, 2_000, MAX_VARIANTS - 2_000).map(({ code: _code, ...rest }) => rest);
    const patched = await call('PATCH', `/products/${product.id}`, {
      variants: [{ id: product.variants[0]!.id, price: '99000' }, ...appended],
    });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const full = (await patched.json()) as Product;
    expect(full.variants).toHaveLength(MAX_VARIANTS);
    expect(full.variants[0]).toEqual({ ...product.variants[0], price: '99000' });
    expect(full.variants.slice(1, 2_000)).toEqual(product.variants.slice(1));
    expect(full.variants.at(-1)).toMatchObject({
      code: `${code}-${MAX_VARIANTS}`,
      attributes: { Size: 'S7', Màu: 'Màu 2', 'Chất liệu': 'Cotton 100%', Lô: 'L1' },
    });
    expect(await (await call('GET', `/products/${product.id}`)).json()).toEqual(full);

    const over = await expectProblem(
      await call('PATCH', `/products/${product.id}`, {
        variants: [{ attributes: { Size: 'S0', Màu: 'Màu 0', 'Chất liệu': 'Cotton 100%', Lô: 'L9' } }],
      }),
      400,
      'validation-failed',
    );
    expect(over.detail).toContain(`at most ${MAX_VARIANTS} variants (it would have ${MAX_VARIANTS + 1})`);
    expect(over.errors).toEqual([{ path: 'variants', message: `at most ${MAX_VARIANTS} variants per product` }]);
    // Editing a variant of a full product appends nothing.
    expect((await call('PATCH', `/products/${product.id}`, { variants: [{ id: full.variants[5]!.id, price: '1' }] })).status).toBe(200);
  });

  it(`refuses a product of ${MAX_VARIANTS + 1} variants with 400 on variants, naming the limit`, async () => {
    const code = `OVER-${unique()}`;
    const body = await expectProblem(
      await call('POST', '/products', { code, name: 'Too many', variants: variants(code, 0, MAX_VARIANTS + 1) }),
      400,
      'validation-failed',
    );
    expect(body.errors).toEqual([{ path: 'variants', message: expect.stringContaining(String(MAX_VARIANTS)) }]);
    expect((await (await call('GET', `/products?search=${code}`)).json()) as { data: unknown[] }).toEqual({ data: [], nextCursor: null });
  });

  it('refuses a product too big for its events to be delivered (thousands of variants with 20 long keywords each)', async () => {
    const code = `KW-${unique()}`;
    const wordy = variants(code, 0, MAX_VARIANTS).map((item, n) => ({
      ...item,
      keywords: Array.from({ length: 20 }, (_, k) => `${k} ${code}-${n} ${'từ khoá rất dài '.repeat(3)}`.slice(0, 50)),
    }));
    const body = await expectProblem(await call('POST', '/products', { code, name: 'Wordy', variants: wordy }), 400, 'validation-failed');
    expect(body.detail).toMatch(new RegExp(`the product would take \\d+ bytes in its events, more than the ${MAX_PRODUCT_EVENT_BYTES}`));
    expect(body.errors).toEqual([{ path: 'variants', message: `the product's data at most ${MAX_PRODUCT_EVENT_BYTES} bytes` }]);
    expect((await (await call('GET', `/products?search=${code}`)).json()) as { data: unknown[] }).toEqual({ data: [], nextCursor: null });
  });

  it('answers a product body past its own limit with 413, naming the limit', async () => {
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Fat', description: 'x'.repeat(PRODUCT_BODY_LIMIT_BYTES), variants: [{}] }),
      413,
      'payload-too-large',
    );
    expect(body.detail).toContain(`exceeds ${PRODUCT_BODY_LIMIT_BYTES} bytes`);
  });
});

describe('attribute values', () => {
  it('takes 100 values of one attribute and refuses the 101st, on create and on PATCH', async () => {
    const values = (from: number, count: number) =>
      Array.from({ length: count }, (_, index) => ({ attributes: { Cỡ: `V${from + index}` } }));
    const expectValuesRefused = async (response: Response) => {
      const body = await expectProblem(response, 400, 'validation-failed');
      expect(body.detail).toContain('has 101 values; at most 100');
      expect(body.errors).toEqual([{ path: 'variants', message: 'at most 100 values per attribute' }]);
    };
    await expectValuesRefused(await call('POST', '/products', { name: 'Cỡ 101', variants: values(0, 101) }));
    const product = await create({ name: 'Cỡ 100', variants: values(0, 100) });
    expect(product.variants).toHaveLength(100);
    await expectValuesRefused(await call('PATCH', `/products/${product.id}`, { variants: values(100, 1) }));
  });
});
