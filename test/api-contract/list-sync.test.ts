import { beforeAll, describe, expect, it } from 'vitest';
import { GRANTABLE_PERMISSIONS } from '../../domain/access/permissions.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';

/**
 * The synchronisation rules of the paginated lists (spec, Limits: Synchronisation semantics and
 * shared list parameters), provoked on GET /orders and GET /products: (updatedAt, id) order, paging
 * that covers every row exactly once, an edit moving a row to the end, cursors that cannot be
 * forged, and the default page size.
 */

const { db, api, request } = useSuite({ api: true });

interface Row {
  id: string;
  updatedAt: string;
}
interface ListPage {
  data: Row[];
  nextCursor: string | null;
}

const call = (key: string, method: string, path: string, body?: unknown) => request(method, path, { key, body });

async function getPage(key: string, path: string): Promise<ListPage> {
  const response = await call(key, 'GET', path);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as ListPage;
}

/** One read pass through `list` with `limit` per page, following nextCursor; stops (and fails) on a runaway pass. */
async function pass(key: string, list: string, limit = 2): Promise<{ ids: string[]; pages: Row[][] }> {
  const pages: Row[][] = [];
  let cursor: string | null = null;
  do {
    const page: ListPage = await getPage(key, `/${list}?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(page.data.length).toBeLessThanOrEqual(limit);
    pages.push(page.data);
    cursor = page.nextCursor;
    if (pages.length > 50) throw new Error(`${list}: the pass did not end after 50 pages`);
  } while (cursor);
  return { ids: pages.flat().map((row) => row.id), pages };
}

const TABLES = { orders: 'orders', products: 'products' } as const;
type List = keyof typeof TABLES;

/** The rows of the shop's list as the database sorts them by (updated_at, id). */
async function storedOrder(list: List, shopId: string): Promise<string[]> {
  const rows = await db.admin<
    { id: string }[]
  >`select id from ${db.admin(TABLES[list])} where shop_id = ${shopId} and deleted_at is null order by updated_at, id`;
  return rows.map((row) => row.id);
}

/** A shop with a key for `list`, able to create and edit its rows through the API. */
interface ListShop {
  shop: ShopFixture;
  key: string;
  create: (index: number) => Promise<string>;
  edit: (id: string) => Promise<void>;
}

async function ordersShop(): Promise<ListShop> {
  const shop = await createShopFixture(db.app);
  const key = (await shop.newKey(['pos.orders.read', 'pos.orders.create', 'pos.orders.update', 'pos.products.read'])).key;
  const { warehouseId, variantId } = await withShop(db.app, shop.shopId, async (tx) => {
    const warehouse = await addWarehouse(tx, shop.shopId, { name: 'Main' });
    const product = await addProduct(tx, shop.shopId, { price: '100000', stock: { warehouseId: warehouse, quantity: '1000' } });
    return { warehouseId: warehouse, variantId: product.variants[0]!.id };
  });
  return {
    shop,
    key,
    create: async (index) => {
      const response = await call(key, 'POST', '/orders', {
        warehouseId,
        note: `order ${index}`,
        lines: [{ variantId, quantity: '1', unitPrice: '100000' }],
      });
      expect(response.status, await response.clone().text()).toBe(201);
      return ((await response.json()) as { id: string }).id;
    },
    edit: async (id) => {
      expect((await call(key, 'PATCH', `/orders/${id}`, { note: 'edited' })).status).toBe(200);
    },
  };
}

async function productsShop(): Promise<ListShop> {
  const shop = await createShopFixture(db.app);
  const key = (await shop.newKey(['pos.products.read', 'pos.products.create', 'pos.products.update'])).key;
  return {
    shop,
    key,
    create: async (index) => {
      const response = await call(key, 'POST', '/products', { name: `Product ${index}`, variants: [{ price: '1000' }] });
      expect(response.status, await response.clone().text()).toBe(201);
      return ((await response.json()) as { id: string }).id;
    },
    edit: async (id) => {
      expect((await call(key, 'PATCH', `/products/${id}`, { name: 'Edited' })).status).toBe(200);
    },
  };
}

const SHOPS: Record<List, () => Promise<ListShop>> = { orders: ordersShop, products: productsShop };

describe.each(['orders', 'products'] as const)('synchronising GET /%s', (list) => {
  let fixture: ListShop;
  let ids: string[];

  beforeAll(async () => {
    fixture = await SHOPS[list]();
    ids = [];
    for (let index = 0; index < 5; index += 1) ids.push(await fixture.create(index));
  });

  it('pages with limit=2 over every row exactly once, in (updatedAt, id) order; an edited row moves to the end', async () => {
    const first = await pass(fixture.key, list);
    expect(first.ids).toEqual(ids);
    expect(first.pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(first.ids).toEqual(await storedOrder(list, fixture.shop.shopId));

    await fixture.edit(ids[1]!);
    const second = await pass(fixture.key, list);
    expect(second.ids).toEqual([ids[0], ids[2], ids[3], ids[4], ids[1]]);
    const times = second.pages.flat().map((row) => row.updatedAt);
    expect(times).toEqual([...times].sort());
    expect(times.at(-1)! > times.at(-2)!).toBe(true);
  });

  it('breaks updatedAt ties by id, and keeps microseconds in the cursor, across page boundaries', async () => {
    const byId = [...ids].sort();
    const table = db.admin(TABLES[list]);
    // One instant for every statement below: each `now()` of its own could fall on either side of a second.
    const [{ instant }] = await db.admin<[{ instant: Date }]>`select date_trunc('second', now()) - interval '1 hour' as instant`;
    // Every row at the same instant: the id alone orders them.
    await db.admin`update ${table} set updated_at = ${instant} where id = any(${ids}::uuid[])`;
    expect((await pass(fixture.key, list)).ids).toEqual(byId);
    // Rows one microsecond apart, in the reverse of id order: a cursor cut to milliseconds would repeat or skip rows.
    for (const [index, id] of byId.entries()) {
      await db.admin`update ${table} set updated_at = ${instant}::timestamptz + ${byId.length - index}::int * interval '1 microsecond' where id = ${id}`;
    }
    const reversed = await pass(fixture.key, list);
    expect(reversed.ids).toEqual([...byId].reverse());
    expect(reversed.pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(reversed.ids).toEqual(await storedOrder(list, fixture.shop.shopId));
  });

  it('refuses a cursor that was tampered with, built by hand, or issued for another list with 400 invalid-cursor', async () => {
    const { nextCursor } = await getPage(fixture.key, `/${list}?limit=2`);
    expect(nextCursor).toEqual(expect.any(String));
    const cursor = nextCursor!;
    const [payload, signature] = cursor.split('.') as [string, string];
    const flip = (text: string, at: number) => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    // The same position, moved to the first row: a hand-made payload with the API's signature.
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    const forgedPayload = Buffer.from(JSON.stringify({ ...decoded, i: ids.find((id) => id !== decoded.i) })).toString('base64url');
    const tampered = [
      `${flip(payload, 5)}.${signature}`,
      `${payload}.${flip(signature, 3)}`,
      `${forgedPayload}.${signature}`,
      payload,
      `${cursor}.${signature}`,
      Buffer.from(JSON.stringify({ k: '2020-01-01 00:00:00+00', i: ids[0] })).toString('base64url'),
      `${Buffer.from(JSON.stringify({ k: '2020-01-01 00:00:00+00', i: ids[0], s: decoded.s })).toString('base64url')}.${'A'.repeat(signature.length)}`,
      'not-a-cursor',
    ];
    for (const bad of tampered) {
      await expectProblem(await call(fixture.key, 'GET', `/${list}?limit=2&cursor=${encodeURIComponent(bad)}`), 400, 'invalid-cursor');
    }
    // A genuine cursor of the other list, same shop, same parameters.
    const otherList = list === 'orders' ? 'products' : 'orders';
    const readsBoth = (await fixture.shop.newKey(['pos.orders.read', 'pos.products.read'])).key;
    const bothCursor = (await getPage(readsBoth, `/${list}?limit=2`)).nextCursor!;
    expect((await call(readsBoth, 'GET', `/${list}?limit=2&cursor=${encodeURIComponent(bothCursor)}`)).status).toBe(200);
    await expectProblem(
      await call(readsBoth, 'GET', `/${otherList}?limit=2&cursor=${encodeURIComponent(bothCursor)}`),
      400,
      'invalid-cursor',
    );
    // The untouched cursor still works.
    expect((await getPage(fixture.key, `/${list}?limit=2&cursor=${encodeURIComponent(cursor)}`)).data).toHaveLength(2);
  });
});

describe('every list with a cursor', () => {
  it('refuses an empty cursor and one of any length with 400 invalid-cursor, never validation-failed', async () => {
    const document = (await (await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`)).json()) as {
      paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }>;
    };
    // The lists of the Open API that take a cursor and no path parameter (a list under a record reads the record first).
    const lists = Object.entries(document.paths)
      .filter(([path, item]) => path.startsWith('/api/open/v1/') && item.get?.parameters?.some(({ name }) => name === 'cursor'))
      .filter(([, item]) => !item.get!.parameters!.some(({ in: where }) => where === 'path'))
      .map(([path]) => path.slice('/api/open/v1'.length));
    expect(lists).toEqual(
      expect.arrayContaining(['/orders', '/products', '/customers', '/shipments', '/inventory/stock', '/conversations']),
    );
    const key = (await createShopFixture(db.app).then((shop) => shop.newKey([...GRANTABLE_PERMISSIONS]))).key;
    for (const list of lists) {
      for (const cursor of ['', 'A'.repeat(2049), `${'A'.repeat(3000)}.${'A'.repeat(22)}`]) {
        const response = await call(key, 'GET', `${list}?cursor=${cursor}`);
        const body = await expectProblem(response, 400, 'invalid-cursor');
        expect(body.detail, list).toMatch(/restart from the first page/);
      }
    }
  });
});

describe('default page size', () => {
  /** 51 rows of `table` straight into a new shop's database: the default page holds 50 of them. */
  it.each([
    ['orders', 'pos.orders.read'],
    ['products', 'pos.products.read'],
    ['customers', 'pos.customers.read'],
  ] as const)('GET /%s without limit gives 50 rows and a cursor to the 51st', async (list, permission) => {
    const shop = await createShopFixture(db.app);
    const key = (await shop.newKey([permission])).key;
    await withShop(db.app, shop.shopId, async (tx) => {
      if (list === 'orders') {
        const warehouseId = await addWarehouse(tx, shop.shopId, { name: 'Main' });
        await tx`insert into orders (shop_id, code, warehouse_id) select ${shop.shopId}, 'BULK-' || n, ${warehouseId} from generate_series(1, 51) as n`;
      } else if (list === 'products') {
        await tx`insert into products (shop_id, code, name) select ${shop.shopId}, 'BULK-' || n, 'Bulk ' || n from generate_series(1, 51) as n`;
      } else {
        await tx`insert into customers (shop_id, name) select ${shop.shopId}, 'Bulk ' || n from generate_series(1, 51) as n`;
      }
    });
    const first = await getPage(key, `/${list}`);
    expect(first.data).toHaveLength(50);
    expect(first.nextCursor).toEqual(expect.any(String));
    const rest = await getPage(key, `/${list}?cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(rest.data).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    expect(new Set([...first.data, ...rest.data].map((row) => row.id)).size).toBe(51);
    // The cursor belongs to this pass: another limit is another pass.
    await expectProblem(await call(key, 'GET', `/${list}?limit=51&cursor=${encodeURIComponent(first.nextCursor!)}`), 400, 'invalid-cursor');
    expect((await getPage(key, `/${list}?limit=100`)).data).toHaveLength(51);
  });
});
