import { formatRow, load, type LoadOptions, type LoadResult } from './load.js';
import type { BenchContext } from './context.js';
import { median } from './quantile.js';

/** A server to load: its entry point, its environment and the path (with query) to call on it. */
export interface Served {
  entry: string;
  env?: Record<string, string>;
  path: string;
}

/** An endpoint of the API beside its two baselines. */
export interface Comparison {
  label: string;
  /** node:http calling the same domain functions as the route: what the framework costs. */
  bare: Served & { label: string };
  /** bench/minimal-server.ts, one statement per request: what all the API's work costs. */
  minimal?: string;
  /** The minimal server's path that also counts the request in its rate window, as the API must. */
  countedMinimal?: string;
  /** The least throughput of the API over the counting minimal's that is acceptable (printed beside the ratio). */
  countedMinimalGoal?: number;
  /** The API path under /api/open/v1. */
  path: string;
  load?: Pick<LoadOptions, 'method' | 'body'>;
  /** Turns each server gets; by default one per two seconds of the duration. A request lasting seconds needs fewer, longer turns. */
  turns?: number;
}

export interface Compared {
  subject: LoadResult;
  baseline: LoadResult;
  minimal?: LoadResult;
  countedMinimal?: LoadResult;
}

/**
 * Loads the servers in turn, in slices (two seconds by default), after a warm-up of each: on a machine shared with other
 * work, a burst of load elsewhere then falls on all of them alike instead of on whichever ran at
 * that moment, and their ratios hold from run to run. Throughput is all requests over all slices;
 * p50 and p99 are the medians of the slices' own.
 */
export async function measureInTurn(
  context: BenchContext,
  served: Served[],
  comparison: Pick<Comparison, 'load' | 'turns'> = {},
): Promise<LoadResult[]> {
  const urls: string[] = [];
  for (const server of served) {
    urls.push(`${await context.startServer(server.entry.replace(/^.*\/|\.ts$/g, ''), server.entry, server.env)}${server.path}`);
  }
  const options = { keys: context.keys, connections: context.connections, ...comparison.load };
  for (const url of urls) await load({ ...options, url, durationSeconds: 2 });
  const turns = comparison.turns ?? Math.max(1, Math.round(context.durationSeconds / 2));
  const seconds = context.durationSeconds / turns;
  const slices: LoadResult[][] = urls.map(() => []);
  for (let turn = 0; turn < turns; turn += 1) {
    for (const [index, url] of urls.entries()) slices[index]!.push(await load({ ...options, url, durationSeconds: seconds }));
  }
  await context.stopServers();
  return slices.map((ofServer) => combine(ofServer, seconds));
}

function combine(slices: LoadResult[], seconds: number): LoadResult {
  const sum = (pick: (slice: LoadResult) => number) => slices.reduce((total, slice) => total + pick(slice), 0);
  return {
    requestsPerSecond: sum((slice) => slice.requests) / (slices.length * seconds),
    p50Ms: median(slices.map((slice) => slice.p50Ms)),
    p99Ms: median(slices.map((slice) => slice.p99Ms)),
    requests: sum((slice) => slice.requests),
    non2xx: sum((slice) => slice.non2xx),
    errors: sum((slice) => slice.errors),
  };
}

/** Loads the minimal baselines (when there are), the bare one and the API in turn, and prints the ratios. */
export async function compareWithBaselines(context: BenchContext, comparison: Comparison): Promise<Compared> {
  const api = { entry: 'api/server.ts', path: `/api/open/v1${comparison.path}` };
  const minimalPaths = [comparison.minimal, comparison.countedMinimal].filter((path) => path !== undefined);
  const minimalServers = minimalPaths.map((path) => ({ entry: 'bench/minimal-server.ts', path }));
  const results = await measureInTurn(context, [...minimalServers, comparison.bare, api], comparison);
  const [baseline, subject] = results.slice(-2) as [LoadResult, LoadResult];
  const minimal = comparison.minimal ? results[0] : undefined;
  const countedMinimal = comparison.countedMinimal ? results[minimalPaths.length - 1] : undefined;
  if (minimal) console.log(formatRow('minimal node:http, one statement', minimal));
  if (countedMinimal) console.log(formatRow('minimal, also counting the rate', countedMinimal));
  console.log(formatRow(comparison.bare.label, baseline));
  console.log(formatRow(comparison.label, subject));
  const ratio = (of: LoadResult) => (subject.requestsPerSecond / of.requestsPerSecond).toFixed(2);
  console.log(
    `ratio full stack / bare: ${ratio(baseline)}${minimal ? `, / minimal: ${ratio(minimal)}` : ''}${
      countedMinimal ? `, / minimal counting: ${ratio(countedMinimal)}` : ''
    } (throughput${comparison.countedMinimalGoal ? `; goal ≥ ${comparison.countedMinimalGoal} of the minimal counting` : ''})`,
  );
  return { subject, baseline, ...(minimal ? { minimal } : {}), ...(countedMinimal ? { countedMinimal } : {}) };
}
