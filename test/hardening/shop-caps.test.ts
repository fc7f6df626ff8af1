import { describe, expect, it, vi } from 'vitest';
import { createPage } from '../../domain/access/index.js';
import { createWarehouse } from '../../domain/inventory/index.js';
import { SHOP_CAPS, withShop, type ShopCap, type Tx } from '../../domain/kernel/index.js';
import { createPaymentMethod, createSalesChannel, createTag } from '../../domain/orders/index.js';
import { ADMIN_PASSWORD, addAdminAndViewer, adminLogIn, type AdminRequest } from '../support/admin-session.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { pickUpAddress } from '../shipments/carrier-order-request.js';

const { db, api } = useSuite({ api: true });

/** A shop of its own per test (each fills one kind to its cap) and its owner's admin session. */
async function shopWithOwner(): Promise<{ shop: ShopFixture; owner: AdminRequest }> {
  const shop = await createShopFixture(db.app);
  await addAdminAndViewer(db.app, shop.shopId);
  return { shop, owner: await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'admin@shop.test', password: ADMIN_PASSWORD }) };
}

/** Fills the shop with `count` of a kind through its domain function, in one transaction. */
async function fill(shopId: string, count: number, create: (tx: Tx, index: number) => Promise<unknown>): Promise<void> {
  await withShop(db.app, shopId, async (tx) => {
    for (let index = 0; index < count; index += 1) await create(tx, index);
  });
}

const held = async (table: string, shopId: string) =>
  (await db.admin<{ n: number }[]>`select count(*)::int as n from ${db.admin(table)} where shop_id = ${shopId}`)[0]!.n;

const kinds: {
  kind: Exclude<ShopCap, 'carrierConnections'>;
  table: string;
  path: string;
  create: (tx: Tx, shopId: string, name: string) => Promise<unknown>;
}[] = [
  { kind: 'chatPages', table: 'pages', path: '/pages', create: (tx, shopId, name) => createPage(tx, shopId, name) },
  { kind: 'warehouses', table: 'warehouses', path: '/warehouses', create: (tx, shopId, name) => createWarehouse(tx, shopId, { name }) },
  { kind: 'tags', table: 'tags', path: '/tags', create: (tx, shopId, name) => createTag(tx, shopId, { name }) },
  {
    kind: 'salesChannels',
    table: 'sales_channels',
    path: '/sales-channels',
    create: (tx, shopId, name) => createSalesChannel(tx, shopId, { name }),
  },
  {
    kind: 'paymentMethods',
    table: 'payment_methods',
    path: '/payment-methods',
    create: (tx, shopId, name) => createPaymentMethod(tx, shopId, { name, kind: 'cash' }),
  },
];
const bodyFor = (path: string, name: string) => (path === '/payment-methods' ? { name, kind: 'cash' } : { name });

describe('per-shop caps', () => {
  it.each(kinds)(
    '$kind: the last one fits, one more is 409 limit-reached and changes nothing; the list holds the cap',
    async ({ kind, table, path, create }) => {
      const { shop, owner } = await shopWithOwner();
      const { limit } = SHOP_CAPS[kind];
      await fill(shop.shopId, limit - 1, (tx, index) => create(tx, shop.shopId, `${kind} ${index}`));
      expect((await owner('POST', path, bodyFor(path, 'the last'))).status).toBe(201);
      const refused = await expectProblem(await owner('POST', path, bodyFor(path, 'one too many')), 409, 'limit-reached');
      expect(refused.detail).toContain(`${limit}`);
      expect(refused.limit).toBe(limit);
      expect(await held(table, shop.shopId)).toBe(limit);
      // Another shop is not held back by this one's cap.
      const other = await createShopFixture(db.app);
      await withShop(db.app, other.shopId, (tx) => create(tx, other.shopId, 'elsewhere'));
      expect(await held(table, other.shopId)).toBe(1);
      const list = (await (await owner('GET', path)).json()) as { data: unknown[] };
      expect(list.data).toHaveLength(limit);
    },
  );

  it('carrier connections: the last one fits, one more is 409 limit-reached and changes nothing', async () => {
    const { shop, owner } = await shopWithOwner();
    const { limit } = SHOP_CAPS.carrierConnections;
    const warehouse = (await (await owner('POST', '/warehouses', { name: 'Kho chính' })).json()) as { id: string };
    // An official endpoint: connecting stores the connection and calls nobody.
    const connect = (name: string) =>
      owner('POST', '/carrier-connections', {
        carrier: 'carrier_b',
        name,
        credentials: { token: 't', clientSource: 'S1' },
        warehouseId: warehouse.id,
        baseUrl: 'https://services.giaohangtietkiem.vn',
        pickUp: pickUpAddress,
      });
    for (let index = 0; index < limit; index += 1) expect((await connect(`GHTK ${index}`)).status).toBe(201);
    await expectProblem(await connect('one too many'), 409, 'limit-reached');
    expect(await held('carrier_connections', shop.shopId)).toBe(limit);
    expect(((await (await owner('GET', '/carrier-connections')).json()) as { data: unknown[] }).data).toHaveLength(limit);
  });

  it('lets one of two creations at one below the cap through when the second counts before the first commits', async () => {
    const shop = await createShopFixture(db.app);
    const { limit } = SHOP_CAPS.warehouses;
    await fill(shop.shopId, limit - 1, (tx, index) => createWarehouse(tx, shop.shopId, { name: `Kho ${index}` }));
    let commit!: () => void;
    const committing = new Promise<void>((resolve) => (commit = resolve));
    let inserted!: () => void;
    const firstInserted = new Promise<void>((resolve) => (inserted = resolve));
    const first = withShop(db.app, shop.shopId, async (tx) => {
      await createWarehouse(tx, shop.shopId, { name: 'Kho mới 1' });
      inserted();
      await committing;
    });
    await firstInserted;
    const second = withShop(db.app, shop.shopId, (tx) => createWarehouse(tx, shop.shopId, { name: 'Kho mới 2' }));
    let settled = false;
    second.then(
      () => (settled = true),
      () => (settled = true),
    );
    // Unguarded, the second creation counts 199 and goes through at once; guarded, it waits for the first's lock.
    await vi.waitUntil(
      async () =>
        settled ||
        (
          await db.admin`
          select 1 from pg_locks where locktype = 'advisory' and not granted
            and database = (select oid from pg_database where datname = current_database())`
        ).length > 0,
      { timeout: 10_000, interval: 20 },
    );
    commit();
    await first;
    await expect(second).rejects.toMatchObject({ code: 'limit-reached', status: 409 });
    expect(await held('warehouses', shop.shopId)).toBe(limit);
  });
});
