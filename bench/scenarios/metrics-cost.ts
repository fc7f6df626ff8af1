import { measureInTurn } from '../baselines.js';
import type { BenchContext } from '../context.js';
import { formatRow, type LoadResult } from '../load.js';

export interface MetricsCost {
  withoutMetrics: LoadResult;
  withMetrics: LoadResult;
  /** Throughput with metrics over throughput without (1: collecting costs nothing). */
  ratio: number;
}

/**
 * What collecting the API's metrics costs (docs/operators.md, "Metrics"): the same API process with
 * `METRICS=off` and with its defaults (every answer timed into a histogram), loaded in turn in the
 * same run on `GET /shop`, the cheapest authenticated route, where the share of the cost is largest.
 */
export async function metricsCostScenario(context: BenchContext): Promise<MetricsCost> {
  const path = '/api/open/v1/shop';
  const [withoutMetrics, withMetrics] = (await measureInTurn(context, [
    { entry: 'api/server.ts', env: { METRICS: 'off' }, path },
    { entry: 'api/server.ts', path },
  ])) as [LoadResult, LoadResult];
  console.log(formatRow('GET /shop, METRICS=off', withoutMetrics));
  console.log(formatRow('GET /shop, metrics collected', withMetrics));
  const ratio = withMetrics.requestsPerSecond / withoutMetrics.requestsPerSecond;
  console.log(`ratio with metrics / without: ${ratio.toFixed(3)} (throughput)`);
  return { withoutMetrics, withMetrics, ratio };
}
