import { compareWithBaselines } from '../baselines.js';
import type { BenchContext } from '../context.js';

/** `GET /shop` through the full stack beside the bare key lookup and the minimal baselines (without and with the rate count). */
export function getShopScenario(context: BenchContext) {
  return compareWithBaselines(context, {
    label: 'GET /api/open/v1/shop (full stack)',
    bare: { label: 'bare node:http + postgres.js', entry: 'bench/bare-shop-server.ts', path: '/shop' },
    minimal: '/shop',
    countedMinimal: '/shop-counted',
    // Issue 34: the contract's exact, shared rate count on every request is the floor; keep within 0.8 of it.
    countedMinimalGoal: 0.8,
    path: '/shop',
  });
}
