import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { addMember } from '../../domain/access/users.js';
import { adminLogIn, type AdminRequest } from '../support/admin-session.js';
import { useSuite } from '../support/suite.js';

// The edits only the shop's staff make (admin API), each delivered signed through a flow: the
// catalogue's customer.updated with `contacts`, product.updated with `images`, customer.deleted.
const { db, api, receiver, shop, request } = useSuite({
  api: true,
  shop: true,
  receiver: true,
  worker: true,
  relay: { retryDelaysMs: [300, 300, 300, 300] },
});
const PASSWORD = 'correct horse battery staple';
let key: string;
let owner: AdminRequest;

beforeAll(async () => {
  key = (
    await shop.newKey(['pos.products.read', 'pos.products.create', 'pos.products.update', 'pos.customers.read', 'pos.customers.create'])
  ).key;
  await addMember(db.app, shop.shopId, { email: 'owner@shop.test', name: 'Owner', password: PASSWORD });
  owner = await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'owner@shop.test', password: PASSWORD });
});

const call = (method: string, path: string, body?: unknown) => request(method, path, { key, body });
const json = async <T>(response: Promise<Response>, status = 200): Promise<T> => {
  const answered = await response;
  expect(answered.status, await answered.clone().text()).toBe(status);
  return (await answered.json()) as T;
};

/** A switched-on flow of `eventType` to a new inbox of the receiver. */
async function listen(eventType: string) {
  const inbox = randomUUID();
  const { secret } = await shop.newFlow({ name: eventType, eventType, url: receiver.url(inbox), state: 'on' });
  /** The `count`th event delivered, its signature checked. */
  const delivered = async (count: number) => {
    const received = (await receiver.waitFor(inbox, count)).at(-1)!;
    expect(new Webhook(secret).verify(received.body, received.headers as Record<string, string>)).toBeTruthy();
    return JSON.parse(received.body) as { type: string; changes?: { fields: string[] }; data: Record<string, unknown> };
  };
  return { inbox, delivered };
}

interface Customer {
  id: string;
  updatedAt: string;
  deletedAt: string | null;
  primaryPhone: string | null;
  primaryEmail: string | null;
  contacts: { id: string; kind: string; value: string; isPrimary: boolean }[];
}
interface Product {
  id: string;
  code: string;
  variants: { id: string }[];
  images: { id: string; url: string; kind: string; variantIds: string[] }[];
}

const eventsOf = async (resourceId: string, type: string) =>
  (await db.admin<{ count: number }[]>`select count(*)::int as count from events where resource_id = ${resourceId} and type = ${type}`)[0]!
    .count;

describe("the shop's staff edits, delivered signed", () => {
  it('sends customer.updated with contacts when the staff set phones and e-mails, and raises updatedAt', async () => {
    const { delivered } = await listen('customer.updated');
    const created = await json<Customer>(
      call('POST', '/customers', { name: 'Nguyễn Lan', contacts: [{ kind: 'phone', value: '0901 234 567' }] }),
      201,
    );

    // A second phone beside the primary one: only `contacts` changed.
    const second = await json<Customer>(
      owner('PUT', `/customers/${created.id}/contacts`, {
        contacts: [
          { kind: 'phone', value: '+84901234567' },
          { kind: 'phone', value: '0912.345.678' },
        ],
      }),
    );
    expect(second.contacts).toEqual([
      { id: created.contacts[0]!.id, kind: 'phone', value: '+84901234567', isPrimary: true },
      { id: expect.any(String), kind: 'phone', value: '+84912345678', isPrimary: false },
    ]);
    const first = await delivered(1);
    expect(first).toMatchObject({ type: 'customer.updated', changes: { fields: ['contacts'] }, data: { id: created.id } });
    expect(first.data.contacts).toEqual(second.contacts);
    // Synchronisation rule 3: the change raised updatedAt, which the read and the event carry.
    expect(Date.parse(second.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    expect(first.data.updatedAt).toBe(second.updatedAt);
    expect((await json<Customer>(call('GET', `/customers/${created.id}`))).updatedAt).toBe(second.updatedAt);
    expect((await json<{ data: { id: string }[] }>(call('GET', '/customers?phone=0912345678'))).data.map((row) => row.id)).toEqual([
      created.id,
    ]);

    // An e-mail, the first of its kind, becomes the primary one: `primaryEmail` moved too.
    const third = await json<Customer>(
      owner('PUT', `/customers/${created.id}/contacts`, {
        contacts: [
          { kind: 'phone', value: '0912345678', isPrimary: true },
          { kind: 'email', value: 'Lan.Nguyen@Example.VN' },
        ],
      }),
    );
    expect(third).toMatchObject({ primaryPhone: '+84912345678', primaryEmail: 'lan.nguyen@example.vn' });
    const next = await delivered(2);
    expect(next.changes).toEqual({ fields: ['primaryPhone', 'primaryEmail', 'contacts'] });
    expect(next.data.contacts).toEqual([
      { id: second.contacts[1]!.id, kind: 'phone', value: '+84912345678', isPrimary: true },
      { id: expect.any(String), kind: 'email', value: 'lan.nguyen@example.vn', isPrimary: true },
    ]);
    expect(Date.parse(third.updatedAt)).toBeGreaterThan(Date.parse(second.updatedAt));

    // The same set again changes nothing: no event, updatedAt kept.
    const same = await json<Customer>(
      owner('PUT', `/customers/${created.id}/contacts`, {
        contacts: [
          { kind: 'email', value: 'lan.nguyen@example.vn' },
          { kind: 'phone', value: '+84912345678' },
        ],
      }),
    );
    expect(same.updatedAt).toBe(third.updatedAt);
    expect(await eventsOf(created.id, 'customer.updated')).toBe(2);
  });

  it('sends product.updated with images when the staff set them, and raises the product’s updatedAt', async () => {
    const { delivered } = await listen('product.updated');
    const product = await json<Product>(
      call('POST', '/products', {
        name: 'Áo thun',
        variants: [
          { attributes: { Size: 'S' }, price: '90000' },
          { attributes: { Size: 'M' }, price: '95000' },
        ],
      }),
      201,
    );
    const row = async () =>
      (await json<{ data: { id: string; updatedAt: string; imageUrl: string | null }[] }>(call('GET', `/products?search=${product.code}`)))
        .data[0]!;
    const before = await row();

    const small = product.variants[0]!.id;
    const shown = await json<Product>(
      owner('PUT', `/products/${product.id}/images`, {
        images: [{ url: 'https://cdn.shop.test/small.jpg', variantIds: [small] }, { url: 'https://cdn.shop.test/front.jpg' }],
      }),
    );
    expect(shown.images).toEqual([
      { id: expect.any(String), url: 'https://cdn.shop.test/small.jpg', kind: 'image', variantIds: [small] },
      { id: expect.any(String), url: 'https://cdn.shop.test/front.jpg', kind: 'image', variantIds: [] },
    ]);
    const first = await delivered(1);
    expect(first).toMatchObject({ type: 'product.updated', changes: { fields: ['images'] }, data: { id: product.id } });
    expect(first.data.images).toEqual(shown.images);
    // Synchronisation rule 3, seen in the list (the product detail has no updatedAt); the shared image leads.
    const after = await row();
    expect(Date.parse(after.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
    expect(after.imageUrl).toBe('https://cdn.shop.test/front.jpg');

    // Reordered, one removed, a video added: a kept image keeps its id and its variants.
    const reordered = await json<Product>(
      owner('PUT', `/products/${product.id}/images`, {
        images: [{ url: 'https://cdn.shop.test/small.jpg' }, { url: 'https://cdn.shop.test/turn.mp4', kind: 'video' }],
      }),
    );
    expect(reordered.images).toEqual([
      shown.images[0],
      { id: expect.any(String), url: 'https://cdn.shop.test/turn.mp4', kind: 'video', variantIds: [] },
    ]);
    const second = await delivered(2);
    expect(second).toMatchObject({ changes: { fields: ['images'] }, data: { images: reordered.images } });

    // The same list again changes nothing: no event, updatedAt kept.
    const latest = await row();
    await json<Product>(owner('PUT', `/products/${product.id}/images`, { images: reordered.images.map(({ url }) => ({ url })) }));
    expect((await row()).updatedAt).toBe(latest.updatedAt);
    expect(await eventsOf(product.id, 'product.updated')).toBe(2);
  });

  it('sends customer.deleted when the staff delete a customer, who then shows only with includeDeleted', async () => {
    const { delivered } = await listen('customer.deleted');
    const created = await json<Customer>(
      call('POST', '/customers', { name: 'Trần Bình', contacts: [{ kind: 'phone', value: '0933 555 777' }] }),
      201,
    );

    const deleted = await json<Customer>(owner('DELETE', `/customers/${created.id}`));
    expect(deleted.deletedAt).toEqual(expect.stringMatching(/Z$/));
    const event = await delivered(1);
    expect(event.type).toBe('customer.deleted');
    expect(event).not.toHaveProperty('changes');
    expect(event.data).toEqual(deleted);

    const listed = async (query: string) =>
      (await json<{ data: { id: string; deletedAt: string | null }[] }>(call('GET', `/customers?phone=0933555777${query}`))).data;
    expect(await listed('')).toEqual([]);
    expect(await listed('&includeDeleted=true')).toEqual([expect.objectContaining({ id: created.id, deletedAt: deleted.deletedAt })]);

    // Deleted is final: no second deletion or edit, and its phone may be a new customer's.
    expect((await owner('DELETE', `/customers/${created.id}`)).status).toBe(404);
    expect((await owner('PUT', `/customers/${created.id}/contacts`, { contacts: [] })).status).toBe(404);
    expect(await eventsOf(created.id, 'customer.deleted')).toBe(1);
    expect((await call('POST', '/customers', { name: 'Trần Bình', contacts: [{ kind: 'phone', value: '0933555777' }] })).status).toBe(201);
  });
});
