import { formatRow, load } from '../load.js';
import type { BenchContext } from '../context.js';

/** `GET /products?limit=100` through the full stack beside the same query behind bare node:http. */
export async function productListScenario(context: BenchContext, shopId: string) {
  const options = { keys: context.keys, durationSeconds: context.durationSeconds, connections: context.connections };
  const baselineUrl = await context.startServer('bare', 'bench/bare-products-server.ts', { BENCH_SHOP_ID: shopId });
  await load({ ...options, url: baselineUrl, durationSeconds: 2 });
  const baseline = await load({ ...options, url: baselineUrl });
  await context.stopServers();

  const apiUrl = await context.startServer('api', 'api/server.ts');
  await load({ ...options, url: `${apiUrl}/api/open/v1/products?limit=100`, durationSeconds: 2 });
  const subject = await load({ ...options, url: `${apiUrl}/api/open/v1/products?limit=100` });
  await context.stopServers();

  console.log(formatRow('bare node:http + same query', baseline));
  console.log(formatRow('GET /products?limit=100', subject));
  console.log(`ratio full stack / baseline: ${(subject.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} (throughput)`);
  return { subject, baseline };
}

/**
 * A full `updatedSince` pass over the catalogue, 100 per page, one request at a time as a sync
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
