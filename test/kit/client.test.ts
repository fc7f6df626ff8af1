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
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';
import { GRANTABLE_PERMISSIONS } from '../../domain/access/permissions.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { connectCarrier } from '../../domain/shipments/carrier-connections.js';
import { recordAcceptedShipment, startShipment } from '../../domain/shipments/index.js';
import { chatKey, simulatorPage } from '../chat/chat-fixtures.js';
import { pickUpAddress } from '../shipments/carrier-order-request.js';
import { useSuite } from '../support/suite.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { kitShop, type KitShop } from './kit-shop.js';
import { testConnectionKeys } from '../support/carriers.js';

const { db, api, shop, chat } = useSuite({ api: true, shop: true, chat: true });
let ready: KitShop;
/** A key of every grantable permission on the shop's chat page: every list has rows for it. */
let key: string;
let conversationIds: string[];
let proxy: FaultProxy;
let client: ShopflowClient;

const fast = { baseDelayMs: 20, maxDelayMs: 2_000 };
beforeAll(async () => {
  ready = await kitShop(db, shop, 3);
  // Two conversations of one message and a comment on the shop's page, through the chat simulator.
  const page = await simulatorPage(db.app, shop.shopId, chat, ['Lan Nguyen', 'Minh Tran']);
  const post = chat.platform.createPost(page.platformPageId, { message: 'Hàng mới về' });
  chat.platform.customerComments(post.id, { psid: page.customers[0]!.psid, message: 'Giá bao nhiêu?' });
  await chat.platform.webhooks.settled();
  conversationIds = page.customers.map((customer) => customer.conversationId);
  key = await chatKey(db.app, shop, [page.pageId], [...GRANTABLE_PERMISSIONS]);
  proxy = await startFaultProxy(api.baseUrl);
  client = createShopflowClient({ baseUrl: proxy.url, apiKey: key, retry: fast });
  const orderIds: string[] = [];
  for (let index = 0; index < 3; index++) {
    await client.api.POST('/customers', { body: { name: `Khách ${index}` } });
    const { data } = await client.api.POST('/orders', {
      body: { warehouseId: ready.warehouseId, lines: [{ variantId: ready.variantIds[index]!, quantity: '1', unitPrice: '100000' }] },
    });
    orderIds.push(data!.id);
  }
  await shipmentsOf(orderIds.slice(0, 2));
});

/** A shipment the carrier accepted for each order (written as the push's acceptance records it; no carrier is called). */
async function shipmentsOf(orderIds: string[]): Promise<void> {
  await withShop(db.app, shop.shopId, async (tx) => {
    const connection = {
      carrier: 'carrier_b' as const,
      name: 'GHTK',
      credentials: { token: 'kit-token', clientSource: 'S000001' },
      warehouseId: ready.warehouseId,
      baseUrl: 'http://127.0.0.1:9',
      pickUp: pickUpAddress,
    };
    const { connectionId } = await connectCarrier(tx, shop.shopId, connection, testConnectionKeys);
    for (const [index, orderId] of orderIds.entries()) {
      const shipmentId = await startShipment(tx, shop.shopId, {
        orderId,
        orderCode: `KIT${index}`,
        connectionId,
        carrier: 'carrier_b',
        weightGram: 500,
        codAmount: '100000',
        note: null,
        recipient: pickUpAddress,
      });
      const carrierOrder = { trackingCode: `S1.KIT.${index}`, shipmentId, feeTotal: null, expectedDeliveryAt: null, carrierStatus: '2' };
      await recordAcceptedShipment(
        tx,
        shop.shopId,
        shipmentId,
        { ...carrierOrder, status: 'pending', returnTrackingCode: null },
        async () => {},
      );
    }
  });
}
afterAll(() => proxy.close());

describe('@shopflow/client', () => {
  it('has types generated from the served OpenAPI document (run `npm run client:types` after changing the API)', async () => {
    const document: unknown = await (await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`)).json();
    expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await clientTypes(document));
  });

  it('iterates every list of the document along nextCursor, one row per page, as one large page has them', async () => {
    const document = (await (await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`)).json()) as {
      paths: Record<string, { get?: { responses: Record<string, { content: Record<string, { schema: { properties?: object } }> }> } }>;
    };
    const lists = Object.entries(document.paths)
      // The Open API's lists.
      .filter(
        ([path, item]) =>
          path.startsWith('/api/open/v1/') &&
          item.get &&
          'nextCursor' in (item.get.responses['200']!.content['application/json']!.schema.properties ?? {}),
      )
      .map(([path]) => path.replace('/api/open/v1', '') as ListPath);
    expect(lists).toEqual(expect.arrayContaining(['/orders', '/products', '/customers', '/shipments', '/inventory/stock']));
    const counts: Record<string, number> = {};
    for (const path of lists) {
      // A list under a record (a conversation's messages): walked for each conversation.
      const ids = path.includes('{') ? conversationIds : [undefined];
      for (const id of ids) {
        const params = id ? { path: { id } } : {};
        const rows = [];
        for await (const row of client.paginate(path, { ...params, query: { limit: 1 } } as never)) rows.push(row);
        const url = `${api.baseUrl}/api/open/v1${id ? path.replace('{id}', id) : path}?limit=100`;
        const whole = (await (await fetch(url, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: unknown[] };
        expect(rows, path).toEqual(whole.data);
        counts[path] = (counts[path] ?? 0) + rows.length;
      }
    }
    expect(counts).toMatchObject({
      '/orders': 3,
      '/customers': 3,
      '/products': 3,
      '/inventory/stock': 3,
      '/shipments': 2,
      '/conversations': 2,
      '/conversations/{id}/messages': 2,
      '/comments': 1,
    });
  });

  it('sends the key only in Authorization, and waits Retry-After after a 429', async () => {
    proxy.script({ status: 429, retryAfter: '1', body: { code: 'rate-limited' } });
    const started = Date.now();
    const { data } = await client.api.GET('/shop');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_000);
    expect(data!.id).toBe(shop.shopId);
    const [limited, passed] = proxy.seen.slice(-2);
    expect([limited!.url, passed!.url]).toEqual(['/api/open/v1/shop', '/api/open/v1/shop']);
    expect(passed!.headers.authorization).toBe(`Bearer ${key}`);
    expect(JSON.stringify(proxy.seen.map((request) => request.url))).not.toContain(key);
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
