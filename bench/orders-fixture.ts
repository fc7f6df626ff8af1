import type { Sql } from '../db/client.js';
import { adjustStock, listWarehouses } from '../domain/inventory/index.js';
import { withShop } from '../domain/kernel/index.js';
import { step } from '../scripts/bootstrap/progress.js';
import { addProduct, addWarehouse, findOrCreateShop } from '../scripts/fixtures/index.js';
import { settle } from './settle.js';

export const SEEDED_ORDERS = 200_000;

export interface OrdersFixture {
  shopId: string;
  warehouseId: string;
  /** Five variants with plenty of stock, and their list prices. */
  variants: { id: string; price: string }[];
  /** Whether this run seeded the orders. */
  seeded: boolean;
}

/**
 * The benchmark order shop: a warehouse, five stocked variants, an owner to handle orders, and
 * 200,000 orders written with set-based SQL once and kept between runs.
 */
export async function ordersShop(sql: Sql, owner: Sql): Promise<OrdersFixture> {
  const shop = await findOrCreateShop(sql, { slug: 'bench-orders', name: 'Benchmark orders', owner: { name: 'Bench Owner' } });
  const fixture = await withShop(sql, shop.shopId, async (tx) => {
    const warehouseId = (await listWarehouses(tx))[0]?.id ?? (await addWarehouse(tx, shop.shopId, { name: 'Bench warehouse' }));
    const variants: { id: string; price: string }[] = [
      ...(await tx<{ id: string; price: string }[]>`select id, api_decimal(price) as price from variants order by code limit 5`),
    ];
    for (let index = variants.length; index < 5; index += 1) {
      const product = await addProduct(tx, shop.shopId, {
        code: `BO${index}`,
        name: `Bench item ${index}`,
        price: String(50000 + index * 10000),
      });
      variants.push({ id: product.variants[0]!.id, price: product.variants[0]!.price });
    }
    // Enough stock that no benchmark run ever runs short.
    const [stocked] = await tx<{ low: boolean }[]>`select coalesce(min(quantity - reserved), 0) < 1000000 as low from stock`;
    if (stocked!.low)
      await adjustStock(
        tx,
        shop.shopId,
        variants.map((variant) => ({ variantId: variant.id, warehouseId, quantityDelta: '1000000000' })),
      );
    const [{ count } = { count: 0 }] = await tx<{ count: number }[]>`select count(*)::int as count from orders where code like 'SEED%'`;
    if (count < SEEDED_ORDERS) {
      await step(`seeding ${SEEDED_ORDERS.toLocaleString('en')} orders for the benchmarks (once)`, async () => {
        const [owner] = await tx<{ userId: string }[]>`select user_id from shop_members limit 1`;
        await tx`
          insert into orders (shop_id, code, warehouse_id, handler_user_id, bill_full_name, total_price, total_amount, occurred_at, created_at, updated_at)
          select ${shop.shopId}, 'SEED' || lpad(i::text, 7, '0'), ${warehouseId}, ${owner!.userId}, 'Khách ' || i,
                 100000 + (i % 50) * 1000, 100000 + (i % 50) * 1000, now() - interval '2 days', now() - interval '2 days',
                 now() - interval '1 day' + i * interval '1 millisecond'
          from generate_series(${count + 1}::int, ${SEEDED_ORDERS}::int) as i`;
      });
    }
    return { shopId: shop.shopId, warehouseId, variants, seeded: count < SEEDED_ORDERS };
  });
  if (fixture.seeded) await settle(owner, ['orders']);
  return fixture;
}

/** The body of the `POST /orders` scenario: five lines at list price. */
export function fiveLineOrder(fixture: OrdersFixture): string {
  return JSON.stringify({
    warehouseId: fixture.warehouseId,
    billFullName: 'Khách benchmark',
    billPhone: '0901234567',
    lines: fixture.variants.map((variant) => ({ variantId: variant.id, quantity: '1', unitPrice: variant.price })),
  });
}
