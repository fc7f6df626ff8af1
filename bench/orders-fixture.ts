import type { Sql } from '../db/client.js';
import { adjustStock } from '../domain/inventory/index.js';
import { addMember, createShop, findShop, GRANTABLE_PERMISSIONS } from '../domain/access/index.js';
import { Problem, withShop } from '../domain/kernel/index.js';
import { createProduct } from '../domain/catalog/index.js';
import { step } from '../scripts/bootstrap/progress.js';
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
  const shop = await findShop(sql, 'bench-orders').catch(async (error: unknown) => {
    if (!(error instanceof Problem && error.code === 'not-found')) throw error;
    const created = await createShop(sql, { slug: 'bench-orders', name: 'Benchmark orders' });
    await addMember(sql, created.id, { email: 'owner@bench-orders.test', name: 'Bench Owner' });
    return created;
  });
  const fixture = await withShop(sql, shop.id, async (tx) => {
    let [warehouse] = await tx<{ id: string }[]>`select id from warehouses limit 1`;
    if (!warehouse)
      [warehouse] = await tx<{ id: string }[]>`insert into warehouses (shop_id, name) values (${shop.id}, 'Bench warehouse') returning id`;
    const variants: { id: string; price: string }[] = [
      ...(await tx<{ id: string; price: string }[]>`select id, api_decimal(price) as price from variants order by code limit 5`),
    ];
    if (variants.length < 5) {
      for (let index = variants.length; index < 5; index += 1) {
        const product = await createProduct(
          tx,
          { shopId: shop.id, permissions: GRANTABLE_PERMISSIONS },
          { code: `BO${index}`, name: `Bench item ${index}`, variants: [{ price: String(50000 + index * 10000) }] },
        );
        variants.push({ id: product.variants[0]!.id, price: product.variants[0]!.price });
      }
    }
    // Enough stock that no benchmark run ever runs short.
    const [stocked] = await tx<{ low: boolean }[]>`select coalesce(min(quantity - reserved), 0) < 1000000 as low from stock`;
    if (stocked!.low)
      await adjustStock(
        tx,
        shop.id,
        variants.map((variant) => ({ variantId: variant.id, warehouseId: warehouse!.id, quantityDelta: '1000000000' })),
      );
    const [{ count } = { count: 0 }] = await tx<{ count: number }[]>`select count(*)::int as count from orders where code like 'SEED%'`;
    if (count < SEEDED_ORDERS) {
      await step(`seeding ${SEEDED_ORDERS.toLocaleString('en')} orders for the benchmarks (once)`, async () => {
        const [owner] = await tx<{ userId: string }[]>`select user_id from shop_members limit 1`;
        await tx`
          insert into orders (shop_id, code, warehouse_id, handler_user_id, bill_full_name, total_price, total_amount, occurred_at, created_at, updated_at)
          select ${shop.id}, 'SEED' || lpad(i::text, 7, '0'), ${warehouse!.id}, ${owner!.userId}, 'Khách ' || i,
                 100000 + (i % 50) * 1000, 100000 + (i % 50) * 1000, now() - interval '2 days', now() - interval '2 days',
                 now() - interval '1 day' + i * interval '1 millisecond'
          from generate_series(${count + 1}::int, ${SEEDED_ORDERS}::int) as i`;
      });
    }
    return { shopId: shop.id, warehouseId: warehouse!.id, variants, seeded: count < SEEDED_ORDERS };
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
