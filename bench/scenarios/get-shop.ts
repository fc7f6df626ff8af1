import { formatRow, load, type LoadResult } from '../load.js';
import type { BenchContext } from '../context.js';

/** `GET /shop` through the full stack against the bare node:http + postgres.js baseline. */
export async function getShopScenario(context: BenchContext): Promise<{ subject: LoadResult; baseline: LoadResult }> {
  const baselineUrl = await context.startServer('bare', 'bench/bare-shop-server.ts');
  const options = { keys: context.keys, durationSeconds: context.durationSeconds, connections: context.connections };
  await load({ ...options, url: `${baselineUrl}/shop`, durationSeconds: 2 });
  const baseline = await load({ ...options, url: `${baselineUrl}/shop` });
  await context.stopServers();

  const apiUrl = await context.startServer('api', 'api/server.ts');
  await load({ ...options, url: `${apiUrl}/api/open/v1/shop`, durationSeconds: 2 });
  const subject = await load({ ...options, url: `${apiUrl}/api/open/v1/shop` });
  await context.stopServers();

  console.log(formatRow('bare node:http + postgres.js', baseline));
  console.log(formatRow('GET /api/open/v1/shop (full stack)', subject));
  console.log(`ratio full stack / baseline: ${(subject.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} (throughput)`);
  return { subject, baseline };
}
