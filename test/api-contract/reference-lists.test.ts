import { beforeAll, describe, expect, it } from 'vitest';
import { createApplication } from '../../domain/access/applications.js';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import { addMember, updateMember } from '../../domain/access/users.js';
import { linkPage } from '../../domain/chat/index.js';
import { createShopFixture, testSecretsKey } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';

const suite = useSuite({ api: true, shop: true });
const { db, shop } = suite;
let key: string;
let unrelatedKey: string;

const ALL = ['pos.orders.create', 'pos.orders.read', 'pos.products.read', 'pos.shipping.read', 'social.pages.read'];

beforeAll(async () => {
  key = (await shop.newKey(ALL)).key;
  unrelatedKey = (await shop.newKey(['pos.customers.read'], 'Unrelated')).key;
});

const get = (path: string, withKey = key) => suite.get(path, withKey);

async function listOf(path: string, withKey = key) {
  const response = await get(path, withKey);
  expect(response.status, path).toBe(200);
  const body = (await response.json()) as { data: Record<string, unknown>[] };
  expect(Object.keys(body)).toEqual(['data']);
  return body.data;
}

const arrange = <T>(work: (tx: Tx) => Promise<T>) => withShop(db.app, shop.shopId, work);

describe('staff and roles', () => {
  it('lists only working, unlocked members, by name, with id and name only', async () => {
    const working = await addMember(db.app, shop.shopId, { email: 'an@staff.test', name: 'An Nguyễn' });
    const accented = await addMember(db.app, shop.shopId, { email: 'dong@staff.test', name: 'Đông Phạm' });
    const disabled = await addMember(db.app, shop.shopId, { email: 'binh@staff.test', name: 'Bình Disabled' });
    const left = await addMember(db.app, shop.shopId, { email: 'chi@staff.test', name: 'Chi Left' });
    const locked = await addMember(db.app, shop.shopId, { email: 'dung@staff.test', name: 'Dũng Locked' });
    await updateMember(db.app, shop.shopId, disabled.id, { status: 'disabled' });
    await updateMember(db.app, shop.shopId, left.id, { status: 'left' });
    await updateMember(db.app, shop.shopId, locked.id, { locked: true });
    // A member of another shop only.
    const other = await createShopFixture(db.app);
    await addMember(db.app, other.shopId, { email: 'elsewhere@staff.test', name: 'Elsewhere' });

    expect(await listOf('/staff')).toEqual([
      { id: working.id, name: 'An Nguyễn' },
      { id: accented.id, name: 'Đông Phạm' },
      { id: shop.ownerId, name: 'Owner' },
    ]);
  });

  it("lists the shop's roles by name", async () => {
    const [cashier] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into roles (shop_id, name) values (${shop.shopId}, 'Cashier') returning id`,
    );
    const [packer] = await arrange(
      (tx) => tx<{ id: string }[]>`insert into roles (shop_id, name) values (${shop.shopId}, 'packer') returning id`,
    );
    const [owner] = await arrange((tx) => tx<{ id: string }[]>`select id from roles where name = 'Owner'`);
    expect(await listOf('/roles')).toEqual([
      { id: cashier!.id, name: 'Cashier' },
      { id: owner!.id, name: 'Owner' },
      { id: packer!.id, name: 'packer' },
    ]);
  });

  it('needs pos.orders.create', async () => {
    const readOnly = (await shop.newKey(['pos.orders.read'], 'Orders read only')).key;
    await expectProblem(await get('/staff', readOnly), 403, 'insufficient-permission');
    await expectProblem(await get('/roles', readOnly), 403, 'insufficient-permission');
  });
});

describe('catalog and order reference lists', () => {
  it('returns categories, warehouses (not deleted), tags, payment methods, sales channels and carrier connections whole, by name', async () => {
    const ids = await arrange(async (tx) => {
      const one = async (query: Promise<{ id: string }[]>) => (await query)[0]!.id;
      return {
        shoes: await one(tx`insert into categories (shop_id, name) values (${shop.shopId}, 'Shoes') returning id`),
        bags: await one(tx`insert into categories (shop_id, name) values (${shop.shopId}, 'Bags') returning id`),
        main: await addWarehouse(tx, shop.shopId, { name: 'Main', address: '1 Lê Lợi, Quận 1' }),
        annex: await addWarehouse(tx, shop.shopId, { name: 'Annex' }),
        closed: await addWarehouse(tx, shop.shopId, { name: 'Closed', deleted: true }),
        vip: await one(tx`insert into tags (shop_id, name) values (${shop.shopId}, 'VIP') returning id`),
        gift: await one(tx`insert into tags (shop_id, name) values (${shop.shopId}, 'gift') returning id`),
        cash: await one(tx`insert into payment_methods (shop_id, name, kind) values (${shop.shopId}, 'Tiền mặt', 'cash') returning id`),
        bank: await one(
          tx`insert into payment_methods (shop_id, name, kind) values (${shop.shopId}, 'Chuyển khoản', 'bank_transfer') returning id`,
        ),
        web: await one(tx`insert into sales_channels (shop_id, name) values (${shop.shopId}, 'Website') returning id`),
        fb: await one(tx`insert into sales_channels (shop_id, name) values (${shop.shopId}, 'Facebook') returning id`),
        carrierB: await one(
          tx`insert into carrier_connections (shop_id, carrier, name, active) values (${shop.shopId}, 'carrier_b', 'B express', false) returning id`,
        ),
        carrierA: await one(
          tx`insert into carrier_connections (shop_id, carrier, name) values (${shop.shopId}, 'carrier_a', 'A post') returning id`,
        ),
      };
    });
    // Another shop's rows never show.
    const other = await createShopFixture(db.app);
    await withShop(db.app, other.shopId, (tx) => tx`insert into categories (shop_id, name) values (${other.shopId}, 'Alien')`);

    expect(await listOf('/categories')).toEqual([
      { id: ids.bags, name: 'Bags' },
      { id: ids.shoes, name: 'Shoes' },
    ]);
    expect(await listOf('/warehouses')).toEqual([
      { id: ids.annex, name: 'Annex', address: null },
      { id: ids.main, name: 'Main', address: '1 Lê Lợi, Quận 1' },
    ]);
    expect(await listOf('/tags')).toEqual([
      { id: ids.gift, name: 'gift' },
      { id: ids.vip, name: 'VIP' },
    ]);
    expect(await listOf('/payment-methods')).toEqual([
      { id: ids.bank, name: 'Chuyển khoản', kind: 'bank_transfer' },
      { id: ids.cash, name: 'Tiền mặt', kind: 'cash' },
    ]);
    expect(await listOf('/sales-channels')).toEqual([
      { id: ids.fb, name: 'Facebook' },
      { id: ids.web, name: 'Website' },
    ]);
    expect(await listOf('/carrier-connections')).toEqual([
      { id: ids.carrierA, carrier: 'carrier_a', name: 'A post', active: true },
      { id: ids.carrierB, carrier: 'carrier_b', name: 'B express', active: false },
    ]);
  });

  it.each([
    ['/categories', 'pos.products.read'],
    ['/warehouses', 'pos.products.read'],
    ['/tags', 'pos.orders.read'],
    ['/payment-methods', 'pos.orders.read'],
    ['/sales-channels', 'pos.orders.read'],
    ['/carrier-connections', 'pos.shipping.read'],
    ['/pages', 'social.pages.read'],
  ])('%s needs %s', async (path, permission) => {
    const body = await expectProblem(await get(path, unrelatedKey), 403, 'insufficient-permission');
    expect(body.detail).toContain(permission);
  });
});

describe('chat pages', () => {
  it("lists only the pages of the key's list, connected or not", async () => {
    const pages = await arrange(async (tx) => {
      const insert = async (name: string, connected = true) =>
        (
          await tx<
            { id: string }[]
          >`insert into pages (shop_id, name, connected) values (${shop.shopId}, ${name}, ${connected}) returning id`
        )[0]!.id;
      const pages = { fashion: await insert('Fashion'), outlet: await insert('Outlet', false), kids: await insert('Kids') };
      // Connected: the page is the shop's and linked to a platform that accepts its token.
      for (const [pageId, platformPageId] of [
        [pages.fashion, 'fb-fashion'],
        [pages.outlet, 'fb-outlet'],
      ])
        // No platform runs here: the token is taken as the page's (test/chat covers the proof).
        await linkPage(
          tx,
          shop.shopId,
          { pageId: pageId!, platformPageId: platformPageId!, accessToken: 'EAA' },
          testSecretsKey,
          async () => platformPageId!,
        );
      return pages;
    });
    const chosen = await arrange((tx) =>
      createApplication(
        tx,
        shop.shopId,
        { name: 'Two pages', permissions: ['social.pages.read'], pages: [pages.outlet, pages.fashion] },
        null,
      ),
    );
    expect(await listOf('/pages', chosen.key)).toEqual([
      { id: pages.fashion, name: 'Fashion', platform: 'facebook', connected: true },
      { id: pages.outlet, name: 'Outlet', platform: 'facebook', connected: false },
    ]);
    // The main key was created before the pages existed: its list is empty.
    expect(await listOf('/pages')).toEqual([]);
  });
});
