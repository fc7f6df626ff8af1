import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createShopflowClient,
  isProblem,
  memoryMarkStore,
  ShopflowProblem,
  sync,
  type ListPath,
  type ShopflowClient,
} from '../../clients/typescript/src/index.js';
import { CLIENT_TYPES_FILE, clientTypes } from '../../scripts/client-types.js';
import { useSuite } from '../support/suite.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { kitShop, type KitShop } from './kit-shop.js';

const { db, api, shop } = useSuite({ api: true, shop: true });
let ready: KitShop;
let proxy: FaultProxy;
let client: ShopflowClient;

const fast = { baseDelayMs: 20, maxDelayMs: 2_000 };
beforeAll(async () => {
  ready = await kitShop(db, shop, 3);
  proxy = await startFaultProxy(api.baseUrl);
  client = createShopflowClient({ baseUrl: proxy.url, apiKey: ready.key, retry: fast });
  for (let index = 0; index < 3; index++) {
    await client.api.POST('/customers', { body: { name: `Khách ${index}` } });
    await client.api.POST('/orders', {
      body: { warehouseId: ready.warehouseId, lines: [{ variantId: ready.variantIds[index]!, quantity: '1', unitPrice: '100000' }] },
    });
  }
});
afterAll(() => proxy.close());

describe('@shopflow/client', () => {
  it('has types generated from the served OpenAPI document (run `npm run client:types` after changing the API)', async () => {
    const document: unknown = await (await fetch(`${api.baseUrl}/api/open/v1/openapi.json`)).json();
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypes(document));
  });

  it('iterates every list of the document along nextCursor, one row per page, as one large page has them', async () => {
    const document = (await (await fetch(`${api.baseUrl}/api/open/v1/openapi.json`)).json()) as {
      paths: Record<string, { get?: { responses: Record<string, { content: Record<string, { schema: { properties?: object } }> }> } }>;
    };
    const lists = Object.entries(document.paths)
      .filter(([, item]) => item.get && 'nextCursor' in (item.get.responses['200']!.content['application/json']!.schema.properties ?? {}))
      .map(([path]) => path.replace('/api/open/v1', '') as ListPath);
    expect(lists).toEqual(expect.arrayContaining(['/orders', '/products', '/customers', '/shipments', '/inventory/stock']));
    const counts: Record<string, number> = {};
    for (const path of lists) {
      if (path.includes('{')) continue; // conversation messages: a path per conversation, and this shop has none (GET /conversations is empty)
      const rows = [];
      for await (const row of client.paginate(path, { query: { limit: 1 } } as never)) rows.push(row);
      const whole = (await (
        await fetch(`${api.baseUrl}/api/open/v1${path}?limit=100`, { headers: { authorization: `Bearer ${ready.key}` } })
      ).json()) as {
        data: unknown[];
      };
      expect(rows, path).toEqual(whole.data);
      counts[path] = rows.length;
    }
    expect(counts).toMatchObject({ '/orders': 3, '/customers': 3, '/products': 3, '/inventory/stock': 3, '/conversations': 0 });
  });

  it('sends the key only in Authorization, and waits Retry-After after a 429', async () => {
    proxy.script({ status: 429, retryAfter: '1', body: { code: 'rate-limited' } });
    const started = Date.now();
    const { data } = await client.api.GET('/shop');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(data!.id).toBe(shop.shopId);
    const [limited, passed] = proxy.seen.slice(-2);
    expect([limited!.url, passed!.url]).toEqual(['/api/open/v1/shop', '/api/open/v1/shop']);
    expect(passed!.headers.authorization).toBe(`Bearer ${ready.key}`);
    expect(JSON.stringify(proxy.seen.map((request) => request.url))).not.toContain(ready.key);
  });

  it('backs off after 5xx and a network error, and never retries a 4xx', async () => {
    proxy.script({ status: 503 }, { status: 502 });
    expect((await client.api.GET('/shop')).data!.slug).toBe(shop.slug);
    const before = proxy.seen.length;
    const refused = await client.api
      .GET('/orders/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ShopflowProblem);
    expect(proxy.seen.length - before).toBe(1);
    const offline = createShopflowClient({ baseUrl: 'http://127.0.0.1:1', apiKey: ready.key, retry: { ...fast, maxAttempts: 3 } });
    await expect(offline.api.GET('/shop')).rejects.toThrow(TypeError);
  });

  it('replays a POST whose answer was lost (connection dropped) with the same Idempotency-Key: one customer', async () => {
    proxy.script('drop-after-forward');
    const before = proxy.seen.length;
    const { data, response } = await client.api.POST('/customers', { body: { name: 'Khách rớt mạng' } });
    const posts = proxy.seen.slice(before);
    expect(posts).toHaveLength(2);
    expect(posts[0]!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    const named = [];
    for await (const row of client.paginate('/customers', { query: { search: 'Khách rớt mạng' } })) named.push(row.id);
    expect(named).toEqual([data!.id]);
  });

  it('sends again after 409 idempotency-key-in-progress and its Retry-After: 1', async () => {
    proxy.script({ status: 409, retryAfter: '1', body: { code: 'idempotency-key-in-progress' } });
    const before = proxy.seen.length;
    const { data } = await client.api.POST('/customers', { body: { name: 'Khách chờ' } });
    expect(data!.name).toBe('Khách chờ');
    const [first, second] = proxy.seen.slice(before);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
  });

  it('throws typed problems: branch on code; an unknown code falls into its status group', async () => {
    const invalid = await client.api
      .POST('/orders', { body: { warehouseId: ready.warehouseId, lines: [] } })
      .catch((error: unknown) => error);
    expect(isProblem(invalid, 'validation-failed')).toBe(true);
    expect(invalid).toMatchObject({ status: 400, group: 'invalid-request', code: 'validation-failed' });
    const stranger = createShopflowClient({ baseUrl: api.baseUrl, apiKey: 'svc_live_000000000000000000000000000000000000aa' });
    await expect(stranger.api.GET('/shop')).rejects.toMatchObject({ status: 401, code: 'invalid-api-key', group: 'access' });
    proxy.script({ status: 409, body: { code: 'a-code-added-later', detail: 'new' } });
    await expect(client.api.GET('/shop')).rejects.toMatchObject({ code: 'a-code-added-later', group: 'conflict' });
  });

  it('sync(): the whole list first, then from 15 min before the stored mark with includeDeleted, restarting at invalid-cursor', async () => {
    const store = memoryMarkStore();
    const applied: string[] = [];
    const limit = 2;
    expect(await sync(client, 'orders', { store, limit, apply: (rows) => void applied.push(...rows.map((row) => row.id)) })).toBe(3);
    const mark = await store.get('orders');
    const rows = [];
    for await (const row of client.paginate('/orders')) rows.push(row);
    expect(mark).toBe(rows.at(-1)!.updatedAt);
    // With updatedSince the list holds only rows older than the safety delay (15 s for this shop).
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(mark!) + 16_000 - Date.now())));
    // Second pass: the cursor of its second page is corrupted once; the pass starts again from page one.
    proxy.script('forward', 'corrupt-cursor');
    const before = proxy.seen.length;
    applied.length = 0;
    await sync(client, 'orders', { store, limit, apply: (rows) => void applied.push(...rows.map((row) => row.id)) });
    const urls = proxy.seen.slice(before).map((request) => new URL(request.url, 'http://x').searchParams);
    expect(urls[0]!.get('updatedSince')).toBe(new Date(Date.parse(mark!) - 15 * 60_000).toISOString());
    expect(urls[0]!.get('includeDeleted')).toBe('true');
    expect(urls.filter((query) => !query.has('cursor')).length).toBe(2);
    expect(new Set(applied).size).toBe(applied.length);
    // Stock rows are keyed by variant and warehouse, marked by their last stock change.
    expect(await sync(client, 'stock', { store, apply: () => {} })).toBe(3);
    expect(await store.get('stock')).toMatch(/^\d{4}-/);
  });
});
