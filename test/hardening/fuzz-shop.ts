import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  createApplication,
  createKey,
  GRANTABLE_PERMISSIONS,
  listApplications,
  MAX_APPLICATIONS_PER_SHOP,
  MAX_LIVE_KEYS,
} from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { dataDir } from '../../scripts/bootstrap/paths.js';
import { seedDemoCarriers } from '../../scripts/seed/demo-carriers.js';
import { seedDemoChat } from '../../scripts/seed/demo-chat.js';
import { seedDemoShop } from '../../scripts/seed/demo-shop.js';
import { HANOI_RECIPIENT } from '../../scripts/fixtures/index.js';
import { testConnectionKeys } from '../support/carriers.js';
import { testSecretsKey } from '../support/fixtures.js';
import type { Suite } from '../support/suite.js';

export interface FuzzShop {
  shopId: string;
  /** A key holding every grantable permission (and every page), one per operation family (tag). */
  /** Operation family → its bearer keys, used in turn. */
  keys: Record<string, string[]>;
  /** Inventory documents (no list reads them back). */
  documentIds: string[];
}

/**
 * The shop the fuzzer works on: the demo shop of `npm run dev` (catalog, customers, stock, staff,
 * reference lists), connected to both carrier simulators and to the chat simulator (conversations, a
 * comment), with orders in several states and a shipment, so that ids the stateful phase follows
 * lead to real records. Every family of operations gets its own key: the 600 requests a minute of
 * one key is then not what the run measures.
 */
export async function seedFuzzShop(
  suite: Pick<Suite, 'db' | 'api' | 'chat' | 'request'>,
  carrierUrls: { carrier_a: string; carrier_b: string },
  /** Operation family (the document's first tag) → how many operations it has. */
  families: Record<string, number>,
): Promise<FuzzShop> {
  const { db, api, chat, request } = suite;
  const folder = join(dataDir, 'fuzz');
  mkdirSync(folder, { recursive: true });
  const demo = await seedDemoShop(db.app, join(folder, 'demo-api-key'));
  const shopId = demo.shopId;
  const connections = await seedDemoCarriers(db.app, shopId, carrierUrls, { ...testConnectionKeys, publicBaseUrl: api.baseUrl });
  await seedDemoChat(db.app, { shopId, platformUrl: chat.url, secretsKey: testSecretsKey });
  const [page] = chat.platform.store.pages.values();
  const post = chat.platform.createPost(page!.id, { message: 'Hàng mới về' });
  const [customer] = [...chat.platform.store.customers.values()].filter((candidate) => candidate.pageId === page!.id);
  chat.platform.customerComments(post.id, { psid: customer!.psid, message: 'Giá bao nhiêu ạ?' });
  await chat.platform.webhooks.settled();

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await request(method, path, { key: demo.key, body });
    if (!response.ok) throw new Error(`seeding ${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, unknown> & { id: string };
  };
  const stock = (await call('GET', '/inventory/stock?limit=20')) as unknown as {
    data: { variantId: string; warehouseId: string; quantity: string }[];
  };
  const customers = (await call('GET', '/customers?limit=5')) as unknown as { data: { id: string }[] };
  const inStock = stock.data.filter((row) => Number(row.quantity) >= 5);
  const orders = [];
  for (const [index, row] of inStock.slice(0, 6).entries()) {
    orders.push(
      await call('POST', '/orders', {
        warehouseId: row.warehouseId,
        customerId: customers.data[index % customers.data.length]!.id,
        shippingAddress: HANOI_RECIPIENT,
        lines: [{ variantId: row.variantId, quantity: '1', unitPrice: '150000' }],
      }),
    );
  }
  for (const order of orders.slice(0, 3)) await call('POST', `/orders/${order.id}/status`, { status: 'ready_to_ship' });
  await call('POST', `/orders/${orders[0]!.id}/notes`, { message: 'Gọi trước khi giao' });
  // One shipment at carrier A; the shipments pool only needs a record, so a refused push is no failure.
  await request('POST', '/shipments', {
    key: demo.key,
    body: { orderId: orders[0]!.id, connectionId: connections[0]!.connectionId, weightGram: 800 },
  });

  const documentIds = [];
  for (const kind of ['receipt', 'adjustment']) {
    const line = { variantId: inStock[0]!.variantId, quantity: '2' };
    documentIds.push((await call('POST', '/inventory/documents', { kind, warehouseId: inStock[0]!.warehouseId, lines: [line] })).id);
  }

  // Every key the shop's free applications can hold (two live keys each), each family with one and the
  // rest to the families with the most operations per key: the 600-a-minute limit is per key, and the
  // busiest family sends about a thousand requests in the bounded run's minute.
  const keys: Record<string, string[]> = {};
  await withShop(db.app, shopId, async (tx) => {
    const lanes = keyLanes(families, (MAX_APPLICATIONS_PER_SHOP - (await listApplications(tx)).length) * MAX_LIVE_KEYS);
    let applicationId = '';
    for (const [index, family] of lanes.entries()) {
      let key: string;
      if (index % MAX_LIVE_KEYS === 0) {
        const permissions = [...GRANTABLE_PERMISSIONS];
        const created = await createApplication(tx, shopId, { name: `Fuzz ${index / MAX_LIVE_KEYS + 1}`, permissions, pages: 'all' }, null);
        applicationId = created.applicationId;
        key = created.key;
      } else key = (await createKey(tx, applicationId, null)).key;
      (keys[family] ??= []).push(key);
    }
  });
  return { shopId, keys, documentIds };
}

/** One family per key, `available` keys in all: one each, then each next key to the family with the most operations per key. */
export function keyLanes(families: Record<string, number>, available: number): string[] {
  const names = Object.keys(families);
  if (available < names.length)
    throw new Error(`${names.length} operation families need ${names.length} keys; the shop has room for ${available}`);
  const lanes = [...names];
  const held = Object.fromEntries(names.map((name) => [name, 1]));
  while (lanes.length < available) {
    const busiest = names.reduce((best, name) => (families[name]! / held[name]! > families[best]! / held[best]! ? name : best));
    held[busiest]! += 1;
    lanes.push(busiest);
  }
  return lanes;
}
