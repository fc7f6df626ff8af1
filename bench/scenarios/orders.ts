import { compareWithBaselines } from '../baselines.js';
import type { BenchContext } from '../context.js';
import { fiveLineOrder, type OrdersFixture } from '../orders-fixture.js';

/**
 * `POST /orders` with five stocked lines, and `GET /orders?limit=50` over 200,000 orders, each beside
 * the same domain call behind bare node:http; the list also beside the minimal baseline.
 */
export async function orderScenarios(context: BenchContext, fixture: OrdersFixture) {
  const bare = {
    label: 'bare node:http + same domain call',
    entry: 'bench/bare-orders-server.ts',
    env: { BENCH_SHOP_ID: fixture.shopId, BENCH_APPLICATION_ID: '00000000-0000-4000-8000-000000000000' },
    path: '/',
  };
  return {
    createOrder: await compareWithBaselines(context, {
      label: 'POST /orders (5 lines, stock)',
      bare,
      path: '/orders',
      load: { method: 'POST', body: () => fiveLineOrder(fixture) },
      turns: 1,
    }),
    listOrders: await compareWithBaselines(context, {
      label: 'GET /orders?limit=50',
      bare,
      minimal: '/orders',
      path: '/orders?limit=50',
      load: { method: 'GET' },
    }),
  };
}
