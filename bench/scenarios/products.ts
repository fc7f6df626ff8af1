import { compareWithBaselines } from '../baselines.js';
import { BIG_PRODUCT_VARIANTS, BIG_PRODUCTS, type BigProductsFixture } from '../big-products-fixture.js';
import type { BenchContext } from '../context.js';

/** `GET /products?limit=100` through the full stack beside the same domain query behind bare node:http, and the minimal baseline. */
export function productListScenario(context: BenchContext, shopId: string) {
  return compareWithBaselines(context, {
    label: 'GET /products?limit=100',
    bare: { label: 'bare node:http + same query', entry: 'bench/bare-products-server.ts', env: { BENCH_SHOP_ID: shopId }, path: '/' },
    minimal: '/products',
    path: '/products?limit=100',
  });
}

/**
 * A full `updatedSince` pass over the catalog, 100 per page, one request at a time as a sync
 * client does it: keyset paging keeps the last pages as fast as the first.
 */
export async function syncPassScenario(context: BenchContext, expectedRows: number) {
  const apiUrl = await context.startServer('api', 'api/server.ts');
  const since = new Date(Date.now() - 2 * 24 * 3600_000).toISOString();
  const pageTimes: number[] = [];
  let cursor: string | null = null;
  let rows = 0;
  let turn = 0;
  const started = performance.now();
  do {
    const url = `${apiUrl}/api/open/v1/products?limit=100&updatedSince=${since}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const pageStarted = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${context.keys[turn++ % context.keys.length]}` } });
    if (response.status !== 200) throw new Error(`sync page ${pageTimes.length + 1}: ${response.status} ${await response.text()}`);
    const page = (await response.json()) as { data: unknown[]; nextCursor: string | null };
    pageTimes.push(performance.now() - pageStarted);
    rows += page.data.length;
    cursor = page.nextCursor;
  } while (cursor);
  const totalSeconds = (performance.now() - started) / 1000;
  await context.stopServers();

  const average = (times: number[]) => times.reduce((sum, time) => sum + time, 0) / times.length;
  const first = average(pageTimes.slice(0, 50));
  const last = average(pageTimes.slice(-50));
  console.log(`sync pass: ${rows} rows in ${pageTimes.length} pages, ${totalSeconds.toFixed(1)} s (expected ${expectedRows})`);
  console.log(
    `  time per page: first 50 pages ${first.toFixed(1)} ms, last 50 pages ${last.toFixed(1)} ms (ratio last/first ${(last / first).toFixed(2)})`,
  );
  return { rows, pages: pageTimes.length, totalSeconds, firstPagesMs: first, lastPagesMs: last };
}

/**
 * `GET /products/{id}` of a product of 2,000 variants (a 1 MB answer) beside the same domain call
 * behind bare node:http, and the minimal baseline that has PostgreSQL write the whole answer.
 */
export function productDetailScenario(context: BenchContext, fixture: BigProductsFixture) {
  return compareWithBaselines(context, {
    label: `GET /products/{id} (${BIG_PRODUCT_VARIANTS.toLocaleString('en')} variants)`,
    bare: {
      label: 'bare node:http + same query',
      entry: 'bench/bare-products-server.ts',
      env: { BENCH_SHOP_ID: fixture.shopId, BENCH_PRODUCT_ID: fixture.productId },
      path: '/detail',
    },
    minimal: `/products/${fixture.productId}`,
    path: `/products/${fixture.productId}`,
  });
}

/**
 * `GET /products?limit=100` over products of 2,000 variants each: a page reads the summary on each
 * product's row, no variant. No minimal baseline: its page counts each product's variants, which is
 * no floor here (about 300 ms a page).
 */
export function bigProductListScenario(context: BenchContext, fixture: BigProductsFixture) {
  return compareWithBaselines(context, {
    label: `GET /products?limit=100 (${BIG_PRODUCTS} products of ${BIG_PRODUCT_VARIANTS.toLocaleString('en')} variants)`,
    bare: {
      label: 'bare node:http + same query',
      entry: 'bench/bare-products-server.ts',
      env: { BENCH_SHOP_ID: fixture.shopId },
      path: '/',
    },
    path: '/products?limit=100',
  });
}
