import { beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../domain/access/users.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { adminLogIn, type AdminRequest } from '../support/admin-session.js';
import { createShopFixture } from '../support/fixtures.js';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

// The admin API's staff edits (contacts, deletion, images): who may make them, and what they refuse.
const { db, api, shop, request } = useSuite({ api: true, shop: true });
const PASSWORD = 'correct horse battery staple';
let key: string;
let owner: AdminRequest;
let sales: AdminRequest;

beforeAll(async () => {
  key = (
    await shop.newKey(['pos.products.read', 'pos.products.create', 'pos.products.delete', 'pos.customers.read', 'pos.customers.create'])
  ).key;
  await withShop(
    db.app,
    shop.shopId,
    (tx) =>
      tx`insert into roles (shop_id, name, permissions) values (${shop.shopId}, 'Sales', ${['pos.customers.read', 'pos.customers.create', 'pos.products.read']})`,
  );
  await addMember(db.app, shop.shopId, { email: 'owner@shop.test', name: 'Owner', password: PASSWORD });
  await addMember(db.app, shop.shopId, { email: 'sales@shop.test', name: 'Sales', role: 'Sales', password: PASSWORD });
  const logIn = (email: string) => adminLogIn(api.baseUrl, { shop: shop.slug, email, password: PASSWORD });
  // One after the other: the login's password hashing takes one at a time per client.
  owner = await logIn('owner@shop.test');
  sales = await logIn('sales@shop.test');
});

const call = async <T = { id: string }>(method: string, path: string, body?: unknown): Promise<T> => {
  const response = await request(method, path, { key, body });
  expect(response.status, path).toBeLessThan(300);
  return (await response.json()) as T;
};
const customer = (phone: string) => call('POST', '/customers', { name: 'Khách', contacts: [{ kind: 'phone', value: phone }] });
const events = async () =>
  (await db.admin<{ count: number }[]>`select count(*)::int as count from events where type like '%.updated' or type like '%.deleted'`)[0]!
    .count;

describe("the shop's staff edits in the admin API", () => {
  it('needs pos.customers.update for contacts and deletion, pos.products.update for images, and the CSRF token', async () => {
    const { id } = await customer('0944 111 222');
    const product = await call<{ id: string }>('POST', '/products', { name: 'Mũ', variants: [{ price: '50000' }] });
    const before = await events();
    const contacts = { contacts: [{ kind: 'email', value: 'a@shop.test' }] };
    const images = { images: [{ url: 'https://cdn.shop.test/m.jpg' }] };
    const refused = [
      await sales('PUT', `/customers/${id}/contacts`, contacts),
      await sales('DELETE', `/customers/${id}`),
      await sales('PUT', `/products/${product.id}/images`, images),
    ];
    for (const response of refused) await expectProblem(response, 403, 'insufficient-permission');
    await expectProblem(await owner('PUT', `/customers/${id}/contacts`, contacts, { csrf: false }), 403, 'csrf-token-invalid');
    await expectProblem(await owner('DELETE', `/customers/${id}`, undefined, { csrf: false }), 403, 'csrf-token-invalid');
    expect(await events()).toBe(before);
    expect(await call<{ contacts: unknown[]; deletedAt: null }>('GET', `/customers/${id}`)).toMatchObject({
      contacts: [expect.objectContaining({ value: '+84944111222' })],
      deletedAt: null,
    });
  });

  it('refuses contacts a customer cannot hold: a phone another live customer has, two primaries, a malformed value', async () => {
    const { id } = await customer('0955 111 222');
    await customer('0955 333 444');
    const put = (contacts: unknown[]) => owner('PUT', `/customers/${id}/contacts`, { contacts });
    const taken = await expectProblem(await put([{ kind: 'phone', value: '0955333444' }]), 409, 'conflict');
    expect(taken.detail).toContain('+84955333444');
    const twoPrimaries = await expectProblem(
      await put([
        { kind: 'email', value: 'a@shop.test', isPrimary: true },
        { kind: 'email', value: 'b@shop.test', isPrimary: true },
      ]),
      400,
      'validation-failed',
    );
    expect(twoPrimaries.detail).toBe('at most one email can be primary');
    for (const [contact, path] of [
      [{ kind: 'email', value: 'not an address' }, 'contacts.0.value'],
      [{ kind: 'phone', value: '09O1 234 567' }, 'contacts.0.value'],
      [{ kind: 'fax', value: '0955111222' }, 'contacts.0.kind'],
    ] as const) {
      const body = await expectProblem(await put([contact]), 400, 'validation-failed');
      expect((body.errors as { path: string }[]).map((error) => error.path)).toContain(path);
    }
    const tooMany = Array.from({ length: 21 }, (_, index) => ({ kind: 'email', value: `k${index}@shop.test` }));
    await expectProblem(await put(tooMany), 400, 'validation-failed');
    // Its own numbers are no clash, and an empty set leaves it without contacts.
    expect((await put([{ kind: 'phone', value: '+84955111222' }])).status).toBe(200);
    expect(await (await put([])).json()).toMatchObject({ contacts: [], primaryPhone: null, primaryEmail: null });
  });

  it("answers 404 for another shop's customer or product, and for a deleted product (its own are found)", async () => {
    const mine = await customer('0966 111 222');
    const gone = await call('POST', '/products', { name: 'Đã xoá', variants: [{ price: '1' }] });
    expect((await owner('PUT', `/customers/${mine.id}/contacts`, { contacts: [] })).status).toBe(200);
    expect((await owner('PUT', `/products/${gone.id}/images`, { images: [] })).status).toBe(200);
    const other = await createShopFixture(db.app);
    const { key: otherKey } = await other.newKey(['pos.customers.create', 'pos.products.create', 'pos.products.read']);
    const foreign = async (path: string, body: unknown) =>
      (await (await request('POST', path, { key: otherKey, body })).json()) as { id: string };
    const theirCustomer = await foreign('/customers', { name: 'Không phải của shop này' });
    const theirProduct = await foreign('/products', { name: 'Không phải của shop này', variants: [{ price: '1' }] });
    await expectProblem(await owner('PUT', `/customers/${theirCustomer.id}/contacts`, { contacts: [] }), 404, 'not-found');
    await expectProblem(await owner('DELETE', `/customers/${theirCustomer.id}`), 404, 'not-found');
    await expectProblem(await owner('PUT', `/products/${theirProduct.id}/images`, { images: [] }), 404, 'not-found');

    await call('DELETE', `/products/${gone.id}`);
    await expectProblem(await owner('PUT', `/products/${gone.id}/images`, { images: [] }), 404, 'not-found');
  });

  it("refuses images that name another product's variant, repeat a URL, are not http(s), or are too many", async () => {
    const product = await call<{ id: string }>('POST', '/products', { name: 'Quần', variants: [{ price: '1' }] });
    const other = await call<{ variants: { id: string }[] }>('POST', '/products', { name: 'Váy', variants: [{ price: '1' }] });
    const put = (images: unknown[]) => owner('PUT', `/products/${product.id}/images`, { images });
    const foreignVariant = other.variants[0]!.id;
    await expectAbsentReference(
      await put([{ url: 'https://cdn.shop.test/a.jpg', variantIds: [foreignVariant] }]),
      'images.0.variantIds.0',
      foreignVariant,
    );
    const repeated = await expectProblem(
      await put([{ url: 'https://cdn.shop.test/a.jpg' }, { url: 'https://cdn.shop.test/a.jpg', kind: 'video' }]),
      400,
      'validation-failed',
    );
    expect(repeated.errors).toEqual([{ path: 'images.1.url', message: 'listed twice' }]);
    for (const url of ['ftp://cdn.shop.test/a.jpg', 'javascript:alert(1)', '/relative.jpg']) {
      await expectProblem(await put([{ url }]), 400, 'validation-failed');
    }
    await expectProblem(
      await put(Array.from({ length: 51 }, (_, index) => ({ url: `https://cdn.shop.test/${index}.jpg` }))),
      400,
      'validation-failed',
    );
    expect(await call<{ images: unknown[] }>('GET', `/products/${product.id}`)).toMatchObject({ images: [] });
  });

  it('declares the three operations in the admin OpenAPI document', async () => {
    const document = (await (await fetch(`${api.baseUrl}/api/admin/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(document.paths['/api/admin/customers/{id}/contacts'] ?? {})).toEqual(['put']);
    expect(Object.keys(document.paths['/api/admin/customers/{id}'] ?? {})).toEqual(['delete']);
    expect(Object.keys(document.paths['/api/admin/products/{id}/images'] ?? {})).toEqual(['put']);
  });
});
