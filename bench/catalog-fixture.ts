import type { Sql } from '../db/client.js';
import { withShop } from '../domain/kernel/index.js';
import { step } from '../scripts/bootstrap/progress.js';
import { findOrCreateShop } from '../scripts/fixtures/index.js';
import { settle } from './settle.js';

export const CATALOG_SIZE = 100_000;

/**
 * The benchmark catalog shop with 100,000 products (one variant each), written with set-based SQL
 * once and kept between runs. Their updatedAt lie a day back, one millisecond apart, so a sync pass
 * with updatedSince sees them all (older than the safety delay).
 */
export async function catalogShop(sql: Sql, owner: Sql): Promise<string> {
  const shop = await findOrCreateShop(sql, { slug: 'bench-catalog', name: 'Benchmark catalog' });
  const seeded = await withShop(sql, shop.shopId, async (tx) => {
    const [{ count } = { count: 0 }] = await tx<{ count: number }[]>`select count(*)::int as count from products`;
    if (count >= CATALOG_SIZE) return false;
    await step(`seeding ${CATALOG_SIZE.toLocaleString('en')} products for the benchmarks (once)`, async () => {
      await tx`delete from products`;
      await tx`
        insert into products (shop_id, code, name, updated_at, created_at)
        select ${shop.shopId}, 'B' || lpad(i::text, 6, '0'), 'Sản phẩm ' || i, now() - interval '1 day' + i * interval '1 millisecond', now() - interval '1 day'
        from generate_series(1, ${CATALOG_SIZE}) as i`;
      await tx`
        insert into variants (shop_id, product_id, position, code, price, combo_key)
        select shop_id, id, 0, code || '-1', 100000 + (hashtext(code) & 1023) * 1000, '' from products`;
      // The summary a product write keeps on the product's row (domain/catalog/products.ts).
      await tx`update products p set variant_count = 1, price_from = v.price, price_to = v.price from variants v where v.product_id = p.id`;
    });
    return true;
  });
  if (seeded) await settle(owner, ['products', 'variants']);
  return shop.shopId;
}
