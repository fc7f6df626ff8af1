import type { Sql } from '../db/client.js';
import { GRANTABLE_PERMISSIONS } from '../domain/access/index.js';
import { createProduct } from '../domain/catalog/index.js';
import { withShop } from '../domain/kernel/index.js';
import { say, step } from '../scripts/bootstrap/progress.js';
import { findOrCreateShop } from '../scripts/fixtures/index.js';
import { settle } from './settle.js';

export const BIG_PRODUCT_VARIANTS = 2_000;
export const BIG_PRODUCTS = 100;

export interface BigProductsFixture {
  shopId: string;
  /** The product written through createProduct, as `POST /products` writes it. */
  productId: string;
}

/**
 * The benchmark shop of big products, kept between runs: one product of 2,000 variants (20 sizes ×
 * 100 colours, each with a code, a barcode, dimensions and five keywords) written once through
 * createProduct, and 99 more with the same variants copied by set-based SQL for the list, each with
 * the variant summary a product write keeps on its row.
 */
export async function bigProductsShop(sql: Sql, owner: Sql): Promise<BigProductsFixture> {
  const shop = await findOrCreateShop(sql, { slug: 'bench-big-products', name: 'Benchmark big products' });
  const fixture = await withShop(sql, shop.shopId, async (tx) => {
    const [found] = await tx<{ id: string }[]>`select id from products where code = 'BIG-0'`;
    const [{ count } = { count: 0 }] = await tx<{ count: number }[]>`select count(*)::int as count from products`;
    if (found && count >= BIG_PRODUCTS) return { productId: found.id, seeded: false };
    await tx`delete from products`;
    const productId = await step(
      `seeding ${BIG_PRODUCTS} products of ${BIG_PRODUCT_VARIANTS.toLocaleString('en')} variants (once)`,
      async () => {
        const started = performance.now();
        const product = await createProduct(
          tx,
          { shopId: shop.shopId, permissions: GRANTABLE_PERMISSIONS },
          {
            code: 'BIG-0',
            name: 'Áo thun 20 size × 100 màu',
            variants: Array.from({ length: BIG_PRODUCT_VARIANTS }, (_, n) => ({
              code: `BIG-0-${n}`,
              barcode: String(8_930_000_000_000 + n),
              price: String(100_000 + n * 10),
              weightGrams: '250',
              lengthCm: '30',
              widthCm: '20',
              heightCm: '2',
              attributes: { Size: `S${n % 20}`, Màu: `Màu ${Math.floor(n / 20)}` },
              keywords: ['đặt', 'mua', 'chốt', 'lấy', 'ship'].map((word) => `BIG-0-${n} ${word}`),
            })),
          },
        );
        say(`  createProduct of ${BIG_PRODUCT_VARIANTS} variants: ${Math.round(performance.now() - started)} ms`);
        await tx`
        insert into products (shop_id, code, name, attribute_names, variant_count, price_from, price_to)
        select p.shop_id, 'BIG-' || i, p.name || ' ' || i, p.attribute_names, p.variant_count, p.price_from, p.price_to
        from products p, generate_series(1, ${BIG_PRODUCTS - 1}) as i where p.id = ${product.id}`;
        await tx`
        insert into variants (shop_id, product_id, position, code, barcode, price, weight_grams, length_cm, width_cm, height_cm, attributes, combo_key, keywords)
        select v.shop_id, p.id, v.position, p.code || substr(v.code, 6), v.barcode, v.price, v.weight_grams, v.length_cm, v.width_cm, v.height_cm,
          v.attributes, v.combo_key, v.keywords
        from products p join variants v on v.product_id = ${product.id} where p.id <> ${product.id}`;
        return product.id;
      },
    );
    return { productId, seeded: true };
  });
  if (fixture.seeded) await settle(owner, ['products', 'variants', 'match_keys']);
  return { shopId: shop.shopId, productId: fixture.productId };
}
