import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { bearer, createShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { freshWindow } from '../support/rate-window.js';
import type { App } from '../../api/app.js';
import { generateApiKey } from '../../domain/access/api-key-format.js';

const withCounterRoutes = (app: App) => {
  // Stand-ins for the message-sending and shipment routes: only their counters matter here.
  app.post('/api/open/v1/test/messages', { config: { rateCounter: 'messages' } }, async () => ({ sent: true }));
  app.post('/api/open/v1/test/shipments', { config: { rateCounter: 'shipments' } }, async () => ({ pushed: true }));
};
const { db, api, shop } = useSuite({ api: { routes: withCounterRoutes }, shop: true });
let apis: TestApi[];

beforeAll(async () => {
  // Two API instances sharing one database, as behind a load balancer.
  apis = [api, await startTestApi(db.app, withCounterRoutes)];
});
afterAll(async () => {
  await apis?.[1]?.close();
});

async function fire(count: number, request: (index: number) => Promise<Response>, concurrency = 50): Promise<Response[]> {
  const responses: Response[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        responses[index] = await request(index);
      }
    }),
  );
  return responses;
}

describe('rate limits shared by every API instance', () => {
  it('lets exactly 600 of 700 concurrent requests of one key through, across two instances', async () => {
    const { key } = await shop.newKey([]);
    await freshWindow(25);
    const responses = await fire(700, (index) => fetch(`${apis[index % 2]!.baseUrl}/api/open/v1/shop`, { headers: bearer(key) }));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(600);
    expect(statuses.filter((status) => status === 429)).toHaveLength(100);

    const limited = responses.find((response) => response.status === 429)!;
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('x-ratelimit-limit')).toBe('600');
    await expectProblem(limited, 429, 'rate-limited');
    const remaining = responses
      .filter((response) => response.status === 200)
      .map((response) => Number(response.headers.get('x-ratelimit-remaining')));
    expect(new Set(remaining).size).toBe(600);
    expect(Math.min(...remaining)).toBe(0);
    expect(Math.max(...remaining)).toBe(599);
  });

  it('counts message sending per key at 60, apart from the general counter', async () => {
    const { key } = await shop.newKey([]);
    const { key: otherKey } = await shop.newKey([]);
    await freshWindow(15);
    const send = (k: string) => fetch(`${apis[0]!.baseUrl}/api/open/v1/test/messages`, { method: 'POST', headers: bearer(k) });
    const responses = await fire(61, () => send(key));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(60);
    expect(responses.find((response) => response.status === 429)?.headers.get('x-ratelimit-limit')).toBe('60');
    // Another key of the same shop has its own message counter, and this key its own general one.
    expect((await send(otherKey)).status).toBe(200);
    const general = await fetch(`${apis[1]!.baseUrl}/api/open/v1/shop`, { headers: bearer(key) });
    expect(general.status).toBe(200);
    expect(general.headers.get('x-ratelimit-remaining')).toBe('599');
  });

  it('counts shipment calls per shop at 60, shared by all the shop’s keys', async () => {
    const keys = [(await shop.newKey([])).key, (await shop.newKey([])).key];
    await freshWindow(15);
    const responses = await fire(70, (index) =>
      fetch(`${apis[index % 2]!.baseUrl}/api/open/v1/test/shipments`, { method: 'POST', headers: bearer(keys[index % 2]!) }),
    );
    expect(responses.filter((response) => response.status === 200)).toHaveLength(60);
    expect(responses.filter((response) => response.status === 429)).toHaveLength(10);
    const other = await createShopFixture(db.app);
    const { key: elsewhere } = await other.newKey([]);
    expect((await fetch(`${apis[0]!.baseUrl}/api/open/v1/test/shipments`, { method: 'POST', headers: bearer(elsewhere) })).status).toBe(
      200,
    );
  });

  it('counts requests with an invalid key per client IP and keeps answering them 401 until the limit', async () => {
    await freshWindow(20);
    const responses = await fire(605, () => fetch(`${apis[0]!.baseUrl}/api/open/v1/shop`, { headers: bearer(generateApiKey()) }));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(600);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
    expect(responses[0]!.headers.get('x-ratelimit-limit')).toBe('600');
  });
});
