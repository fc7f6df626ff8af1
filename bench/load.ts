import autocannon from 'autocannon';
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  errors: number;
}

export interface LoadOptions {
  url: string;
  /** Bearer keys, used in turn: each key has its own rate-limit budget. */
  keys: string[];
  method?: 'GET' | 'POST';
  body?: () => string;
  durationSeconds: number;
  connections: number;
}

/** Runs autocannon against one URL, cycling through the keys. */
export async function load(options: LoadOptions): Promise<LoadResult> {
  let turn = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: [
      {
        method: options.method ?? 'GET',
        setupRequest: (request) => {
          const key = options.keys[turn++ % options.keys.length];
          return {
            ...request,
            headers: { ...request.headers, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            ...(options.body ? { body: options.body() } : {}),
          };
        },
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

export function formatRow(name: string, result: LoadResult): string {
  return `${name.padEnd(34)} ${result.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${String(result.p50Ms).padStart(4)} ms   p99 ${String(result.p99Ms).padStart(4)} ms   non-2xx ${result.non2xx}   errors ${result.errors}`;
}

/** Runs `work` on each of `items`, at most `concurrency` at once (in no particular order). */
export async function eachAtMost<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<void>): Promise<void> {
  const left = [...items];
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let item = left.pop(); item !== undefined; item = left.pop()) await work(item);
    }),
  );
}

/**
 * Calls `fire` `rate` times a second for `seconds`, on schedule (open loop: a slow call does not
 * hold back the next one), and resolves when every call has settled.
 */
export async function atSteadyRate(rate: number, seconds: number, fire: (index: number) => Promise<void>): Promise<void> {
  const total = Math.round(rate * seconds);
  const started = performance.now();
  const calls: Promise<void>[] = [];
  while (calls.length < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * rate) / 1000) + 1);
    while (calls.length < due) calls.push(fire(calls.length));
    await sleep(2);
  }
  await Promise.all(calls);
}

/**
 * A JSON POST to the loopback port `port` from the loopback address `localAddress` (undici's agent
 * ignores `localAddress`; node:http honours it): its status ('error' when the connection failed) and
 * body. A client per address, as the login's limits count them.
 */
export function postFromAddress(
  localAddress: string,
  port: number,
  path: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<{ status: string; text: string }> {
  return new Promise((resolve) => {
    const sent = httpRequest(
      { host: '127.0.0.1', port, path, method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        answer.on('end', () => resolve({ status: String(answer.statusCode), text }));
      },
    );
    sent.on('error', () => resolve({ status: 'error', text: '' }));
    sent.end(body);
  });
}
