import { formatRow, load, type LoadOptions, type LoadResult } from './load.js';
import type { BenchContext } from './context.js';

/** A server to load: its entry point, its environment and the path (with query) to call on it. */
export interface Served {
  entry: string;
  env?: Record<string, string>;
  path: string;
}

/** An endpoint of the API beside its two baselines, each measured alone after a 2-second warm-up. */
export interface Comparison {
  label: string;
  /** node:http calling the same domain functions as the route: what the framework costs. */
  bare: Served & { label: string };
  /** bench/minimal-server.ts, one statement per request: what all the API's work costs. */
  minimal?: string;
  /** The API path under /api/open/v1. */
  path: string;
  load?: Pick<LoadOptions, 'method' | 'body'>;
}

export interface Compared {
  subject: LoadResult;
  baseline: LoadResult;
  minimal?: LoadResult;
}

async function measure(context: BenchContext, name: string, served: Served, extra: Comparison['load']): Promise<LoadResult> {
  const base = await context.startServer(name, served.entry, served.env);
  const options = { keys: context.keys, durationSeconds: context.durationSeconds, connections: context.connections, ...extra };
  await load({ ...options, url: `${base}${served.path}`, durationSeconds: 2 });
  const result = await load({ ...options, url: `${base}${served.path}` });
  await context.stopServers();
  return result;
}

/** Runs the minimal baseline (when there is one), the bare one and the API in turn, and prints both ratios. */
export async function compareWithBaselines(context: BenchContext, comparison: Comparison): Promise<Compared> {
  const minimal = comparison.minimal
    ? await measure(context, 'minimal', { entry: 'bench/minimal-server.ts', path: comparison.minimal }, comparison.load)
    : undefined;
  const baseline = await measure(context, 'bare', comparison.bare, comparison.load);
  const subject = await measure(context, 'api', { entry: 'api/server.ts', path: `/api/open/v1${comparison.path}` }, comparison.load);
  if (minimal) console.log(formatRow('minimal node:http, one statement', minimal));
  console.log(formatRow(comparison.bare.label, baseline));
  console.log(formatRow(comparison.label, subject));
  const ratio = (of: LoadResult) => (subject.requestsPerSecond / of.requestsPerSecond).toFixed(2);
  console.log(`ratio full stack / bare: ${ratio(baseline)}${minimal ? `, / minimal: ${ratio(minimal)}` : ''} (throughput)`);
  return { subject, baseline, ...(minimal ? { minimal } : {}) };
}
