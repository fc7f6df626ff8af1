import { formatRow, load, type LoadResult } from '../load.js';
import type { BenchContext } from '../context.js';
import { fiveLineOrder, type OrdersFixture } from '../orders-fixture.js';

async function compare(context: BenchContext, fixture: OrdersFixture, label: string, path: string, method: 'GET' | 'POST') {
  const body = method === 'POST' ? () => fiveLineOrder(fixture) : undefined;
  const options = {
    keys: context.keys,
    durationSeconds: context.durationSeconds,
    connections: context.connections,
    method,
    ...(body ? { body } : {}),
  };
  const baselineUrl = await context.startServer('bare', 'bench/bare-orders-server.ts', {
    BENCH_SHOP_ID: fixture.shopId,
    BENCH_APPLICATION_ID: '00000000-0000-4000-8000-000000000000',
  });
  await load({ ...options, url: baselineUrl, durationSeconds: 2 });
  const baseline: LoadResult = await load({ ...options, url: baselineUrl });
  await context.stopServers();
  const apiUrl = await context.startServer('api', 'api/server.ts');
  await load({ ...options, url: `${apiUrl}/api/open/v1${path}`, durationSeconds: 2 });
  const subject: LoadResult = await load({ ...options, url: `${apiUrl}/api/open/v1${path}` });
  await context.stopServers();
  console.log(formatRow('bare node:http + same domain call', baseline));
  console.log(formatRow(label, subject));
  console.log(`ratio full stack / baseline: ${(subject.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} (throughput)`);
  return { subject, baseline };
}

/** `POST /orders` with five stocked lines, and `GET /orders?limit=50` over 200,000 orders. */
export async function orderScenarios(context: BenchContext, fixture: OrdersFixture) {
  return {
    createOrder: await compare(context, fixture, 'POST /orders (5 lines, stock)', '/orders', 'POST'),
    listOrders: await compare(context, fixture, 'GET /orders?limit=50', '/orders?limit=50', 'GET'),
  };
}
