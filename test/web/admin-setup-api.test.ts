import { beforeAll, describe, expect, it } from 'vitest';
import { withShop } from '../../domain/kernel/index.js';
import { addOrder, addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import { ADMIN_PASSWORD, adminLogIn, logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { pickUpAddress } from '../shipments/carrier-order-request.js';

/** The admin API of issue 31: the person's language, the shop's name, and set-up entries renamed and removed safely. */
const { db, api, get } = useSuite({ api: true });
let shop: ShopFixture;
let owner: AdminRequest;

beforeAll(async () => {
  shop = await createShopFixture(db.app, { name: 'Thời trang An' });
  ({ admin: owner } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
});

const json = async <T>(response: Response | Promise<Response>, status = 200): Promise<T> => {
  const answered = await response;
  expect(answered.status).toBe(status);
  return (await answered.json()) as T;
};
type Entry = { id: string; name: string };

describe('the session', () => {
  it("names the shop, and keeps the person's language on their account for their next log-in", async () => {
    const session = await json<{ shop: { name: string; slug: string }; user: { language: string | null } }>(owner('GET', '/session'));
    expect(session.shop).toMatchObject({ name: 'Thời trang An', slug: shop.slug });
    expect(session.user.language).toBeNull();

    const chosen = await json<{ user: { language: string } }>(owner('PATCH', '/session', { language: 'en' }));
    expect(chosen.user.language).toBe('en');
    await expectProblem(await owner('PATCH', '/session', { language: 'fr' }), 400, 'validation-failed');
    await expectProblem(await owner('PATCH', '/session', { language: 'vi' }, { csrf: false }), 403, 'csrf-token-invalid');

    const again = await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'admin@shop.test', password: ADMIN_PASSWORD });
    expect((await json<{ user: { language: string } }>(again('GET', '/session'))).user.language).toBe('en');
  });
});

describe('the order set-up lists', () => {
  it('refuse a name taken in the list, whatever its letter case, on creation and on rename', async () => {
    const vip = await json<Entry>(owner('POST', '/tags', { name: 'VIP' }), 201);
    const taken = await expectProblem(await owner('POST', '/tags', { name: 'vip' }), 409, 'conflict');
    expect(taken.errors).toEqual([{ path: 'name', message: 'is already taken' }]);
    const other = await json<Entry>(owner('POST', '/tags', { name: 'Khách sỉ' }), 201);
    await expectProblem(await owner('PATCH', `/tags/${other.id}`, { name: ' Vip ' }), 409, 'conflict');
    // Accents make another word: `Khách sì` is not `Khách sỉ`.
    expect((await json<Entry>(owner('POST', '/tags', { name: 'Khách sì' }), 201)).name).toBe('Khách sì');
    expect(await json<Entry>(owner('PATCH', `/tags/${vip.id}`, { name: 'Khách VIP' }))).toEqual({ id: vip.id, name: 'Khách VIP' });
    // Its own name, in another case, is no clash.
    expect((await json<Entry>(owner('PATCH', `/tags/${vip.id}`, { name: 'khách vip' }))).name).toBe('khách vip');
  });

  it('remove an entry no order uses, and refuse one an order uses, saying how many', async () => {
    const gift = await json<Entry>(owner('POST', '/tags', { name: 'Quà tặng' }), 201);
    const cod = await json<Entry>(owner('POST', '/payment-methods', { name: 'Thu hộ', kind: 'cod' }), 201);
    const web = await json<Entry>(owner('POST', '/sales-channels', { name: 'Website' }), 201);
    await withShop(db.app, shop.shopId, async (tx) => {
      const warehouseId = await addWarehouse(tx, shop.shopId, { name: 'Kho đơn' });
      const product = await addProduct(tx, shop.shopId, { price: '150000', stock: { warehouseId, quantity: '5' } });
      await addOrder(tx, shop.shopId, {
        warehouseId,
        salesChannelId: web.id,
        tagIds: [gift.id],
        payments: [{ methodId: cod.id, amount: '150000' }],
        lines: [{ variantId: product.variants[0]!.id, quantity: '1', unitPrice: '150000' }],
      });
    });
    for (const path of [`/tags/${gift.id}`, `/payment-methods/${cod.id}`, `/sales-channels/${web.id}`]) {
      const refused = await expectProblem(await owner('DELETE', path), 409, 'conflict');
      expect(refused).toMatchObject({ usedBy: 'orders', uses: 1 });
    }
    expect((await json<{ data: Entry[] }>(owner('GET', '/tags'))).data.map((tag) => tag.name)).toContain('Quà tặng');

    const spare = await json<Entry>(owner('POST', '/payment-methods', { name: 'Ví MoMo', kind: 'other' }), 201);
    expect(await json(owner('PATCH', `/payment-methods/${spare.id}`, { kind: 'wallet' }))).toEqual({ ...spare, kind: 'wallet' });
    expect((await owner('DELETE', `/payment-methods/${spare.id}`)).status).toBe(204);
    expect((await json<{ data: Entry[] }>(owner('GET', '/payment-methods'))).data.map((method) => method.id)).not.toContain(spare.id);
    await expectProblem(await owner('DELETE', `/payment-methods/${spare.id}`), 404, 'not-found');
  });

  it('are changed only by a member holding the set-up permission', async () => {
    const viewer = await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'viewer@shop.test', password: ADMIN_PASSWORD });
    const tag = await json<Entry>(owner('POST', '/tags', { name: 'Chỉ chủ' }), 201);
    await expectProblem(await viewer('PATCH', `/tags/${tag.id}`, { name: 'x' }), 403, 'insufficient-permission');
    await expectProblem(await viewer('DELETE', `/tags/${tag.id}`), 403, 'insufficient-permission');
  });
});

describe('warehouses', () => {
  it('are renamed, and removed only when nothing is stored, open or picked up there', async () => {
    const warehouse = await json<Entry>(owner('POST', '/warehouses', { name: 'Kho Gò Vấp', address: null }), 201);
    expect(await json(owner('PATCH', `/warehouses/${warehouse.id}`, { name: 'Kho Thủ Đức', address: '1 Võ Văn Ngân' }))).toEqual({
      id: warehouse.id,
      name: 'Kho Thủ Đức',
      address: '1 Võ Văn Ngân',
    });

    const stocked = await withShop(db.app, shop.shopId, async (tx) => {
      const id = await addWarehouse(tx, shop.shopId, { name: 'Kho còn hàng' });
      await addProduct(tx, shop.shopId, { stock: { warehouseId: id, quantity: '3' } });
      return id;
    });
    expect(await expectProblem(await owner('DELETE', `/warehouses/${stocked}`), 409, 'conflict')).toMatchObject({
      usedBy: 'stock-rows',
      uses: 1,
    });

    const connected = await owner('POST', '/carrier-connections', {
      carrier: 'carrier_b',
      name: 'GHTK Thủ Đức',
      credentials: { token: 't', clientSource: 'S1' },
      warehouseId: warehouse.id,
      baseUrl: 'https://services.giaohangtietkiem.vn',
      pickUp: pickUpAddress,
    });
    const { connection } = await json<{ connection: { id: string } }>(connected, 201);
    expect(await expectProblem(await owner('DELETE', `/warehouses/${warehouse.id}`), 409, 'conflict')).toMatchObject({
      usedBy: 'carrier-connections',
      uses: 1,
    });
    expect((await owner('DELETE', `/carrier-connections/${connection.id}`)).status).toBe(200);
    expect((await owner('DELETE', `/warehouses/${warehouse.id}`)).status).toBe(204);
    expect((await json<{ data: Entry[] }>(owner('GET', '/warehouses'))).data.map((row) => row.id)).not.toContain(warehouse.id);
    await expectProblem(await owner('PATCH', `/warehouses/${warehouse.id}`, { name: 'Lại' }), 404, 'not-found');
  });
});

describe('connection applications', () => {
  it('are removed: their keys stop at once, the list and the limit forget them, the shop log keeps naming them', async () => {
    const other = await createShopFixture(db.app);
    const { admin } = await logInAdminAndViewer(api.baseUrl, db.app, other);
    const created = await json<{ applicationId: string; key: string }>(
      admin('POST', '/applications', { name: 'Robot kho', permissions: ['pos.products.read'] }),
      201,
    );
    expect((await get('/shop', created.key)).status).toBe(200);
    expect((await admin('DELETE', `/applications/${created.applicationId}`)).status).toBe(204);
    expect((await get('/shop', created.key)).status).toBe(401);
    const listed = await json<{ data: Entry[] }>(admin('GET', '/applications'));
    expect(listed.data).toEqual([]);
    await expectProblem(await admin('POST', `/applications/${created.applicationId}/rotate`, {}), 404, 'not-found');
    await expectProblem(await admin('DELETE', `/applications/${created.applicationId}`), 404, 'not-found');
    const logged = await db.admin<{ action: string }[]>`
      select action from shop_log where subject_id = ${created.applicationId} order by created_at`;
    expect(logged.map((row) => row.action)).toEqual(['application.created', 'application.removed']);
  });
});
