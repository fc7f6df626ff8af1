import { Counter, Histogram } from 'prom-client';

const requestSeconds = new Histogram({
  name: 'shopflow_http_request_duration_seconds',
  help: "API requests by method, route (the route's pattern; unmatched for none) and status code, by how long the answer took.",
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
});
const rateLimitRefusals = new Counter({
  name: 'shopflow_rate_limit_refusals_total',
  help: 'Requests refused 429 by a rate limit, by area: open_api (per key and per address), admin, platform (callbacks), other.',
  labelNames: ['area'] as const,
});

export type RequestArea = 'open_api' | 'admin' | 'platform' | 'other';

export interface ObservedRequest {
  method: string;
  /** The route's pattern (`/api/open/v1/orders/:id`), never the path asked for: no id reaches a label. */
  route: string | undefined;
  status: number;
  seconds: number;
}

export function observeRequest(observed: ObservedRequest): void {
  requestSeconds.observe(
    { method: observed.method, route: observed.route ?? 'unmatched', status: String(observed.status) },
    observed.seconds,
  );
}

export function observeRateLimitRefusal(area: RequestArea): void {
  rateLimitRefusals.inc({ area });
}
