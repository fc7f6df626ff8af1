import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createPage } from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { ADMIN_PASSWORD, adminLogIn, type AdminRequest, logInAdminAndViewer } from '../support/admin-session.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

/**
 * The rules of connection applications and their keys (spec, Authentication: Permissions, Rotation
 * and revocation), through the admin API the connection screen uses, and what the keys then see on
 * the Open API.
 */
const { db, api, shop, request } = useSuite({ api: true, shop: true });
let admin: AdminRequest;
let pageA: string;
let pageB: string;

interface Application {
  id: string;
  permissions: string[];
  pageIds: string[];
  keys: { id: string; expiresAt: string | null; live: boolean }[];
}

beforeAll(async () => {
  ({ admin } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
  [pageA, pageB] = await withShop(db.app, shop.shopId, async (tx) => [
    (await createPage(tx, shop.shopId, 'Page A')).id,
    (await createPage(tx, shop.shopId, 'Page B')).id,
  ]);
});

const json = async <T>(response: Response, status: number): Promise<T> => {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
};

function newApplication(by: AdminRequest, body: { permissions: string[]; pages?: string[] }) {
  return by('POST', '/applications', { name: 'ERP', ...body }).then((response) =>
    json<{ applicationId: string; keyId: string; key: string }>(response, 201),
  );
}

async function application(id: string): Promise<Application> {
  const listed = await json<{ data: Application[] }>(await admin('GET', '/applications'), 200);
  return listed.data.find((candidate) => candidate.id === id)!;
}

/** A member of the shop with a role of `permissions`, logged in to the admin API. */
async function member(name: string, permissions: string[]): Promise<AdminRequest> {
  await withShop(
    db.app,
    shop.shopId,
    (tx) => tx`insert into roles (shop_id, name, permissions) values (${shop.shopId}, ${name}, ${permissions})`,
  );
  const email = `${name.toLowerCase()}@shop.test`;
  await addMember(db.app, shop.shopId, { email, name, role: name, password: ADMIN_PASSWORD });
  return adminLogIn(api.baseUrl, { shop: shop.slug, email, password: ADMIN_PASSWORD });
}

const keyWorks = async (key: string) => (await request('GET', '/shop', { key })).status === 200;
const pagesOf = async (key: string) =>
  (await json<{ data: { id: string }[] }>(await request('GET', '/pages', { key }), 200)).data.map((page) => page.id).sort();
const hoursFromNow = (at: string) => (Date.parse(at) - Date.now()) / 3_600_000;

describe('rotation', () => {
  it('keeps the old key for 24 hours when no overlap is given, and refuses an overlap above 72 hours', async () => {
    const created = await newApplication(admin, { permissions: ['pos.orders.read'] });
    const rotate = (body: unknown) => admin('POST', `/applications/${created.applicationId}/rotate`, body);
    for (const overlapHours of [73, -1, 1.5]) await expectProblem(await rotate({ overlapHours }), 400, 'validation-failed');
    expect((await application(created.applicationId)).keys).toEqual([expect.objectContaining({ id: created.keyId, expiresAt: null })]);

    const rotated = await json<{ keyId: string; key: string; previousKeysExpireAt: string }>(await rotate({}), 200);
    expect(hoursFromNow(rotated.previousKeysExpireAt)).toBeCloseTo(24, 1);
    const keys = (await application(created.applicationId)).keys;
    expect(keys.find((key) => key.id === created.keyId)).toMatchObject({ live: true, expiresAt: rotated.previousKeysExpireAt });
    expect(keys.find((key) => key.id === rotated.keyId)).toMatchObject({ live: true, expiresAt: null });
    expect([await keyWorks(created.key), await keyWorks(rotated.key)]).toEqual([true, true]);

    // The longest overlap is accepted.
    const other = await newApplication(admin, { permissions: ['pos.orders.read'] });
    const longest = await json<{ previousKeysExpireAt: string }>(
      await admin('POST', `/applications/${other.applicationId}/rotate`, { overlapHours: 72 }),
      200,
    );
    expect(hoursFromNow(longest.previousKeysExpireAt)).toBeCloseTo(72, 1);
  });
});

describe('adding a key without rotating', () => {
  it('leaves the existing key without an expiry; a third live key waits for a revocation', async () => {
    const created = await newApplication(admin, { permissions: ['pos.orders.read'] });
    const add = () => admin('POST', `/applications/${created.applicationId}/keys`);
    const added = await json<{ keyId: string; key: string }>(await add(), 201);
    const keys = (await application(created.applicationId)).keys;
    expect(keys.map((key) => [key.id, key.live, key.expiresAt]).sort()).toEqual(
      [
        [created.keyId, true, null],
        [added.keyId, true, null],
      ].sort(),
    );
    expect([await keyWorks(created.key), await keyWorks(added.key)]).toEqual([true, true]);

    await expectProblem(await add(), 409, 'conflict');
    await json(await admin('POST', `/keys/${created.keyId}/revoke`), 200);
    expect(await keyWorks(created.key)).toBe(false);
    expect((await add()).status).toBe(201);
    expect((await application(created.applicationId)).keys.find((key) => key.id === added.keyId)).toMatchObject({ expiresAt: null });
  });
});

describe('a page edit', () => {
  it("changes the pages the key sees, within the editor's permissions and pages", async () => {
    const chat = ['social.pages.read', 'social.conversations.read'];
    const created = await newApplication(admin, { permissions: [...chat, 'pos.orders.read'], pages: [pageA] });
    expect(await pagesOf(created.key)).toEqual([pageA]);

    const edited = await json<Application>(await admin('PATCH', `/applications/${created.applicationId}`, { pages: [pageB] }), 200);
    expect(edited).toMatchObject({ pageIds: [pageB], permissions: [...chat, 'pos.orders.read'].sort() });
    expect(await pagesOf(created.key)).toEqual([pageB]);

    // A person without one of the application's permissions cannot edit its pages, though they see every page.
    const chatClerk = await member('ChatClerk', [...chat, 'automation.connections.manage']);
    await expectProblem(
      await chatClerk('PATCH', `/applications/${created.applicationId}`, { pages: [pageA, pageB] }),
      403,
      'insufficient-permission',
    );
    expect((await application(created.applicationId)).pageIds).toEqual([pageB]);
    expect(await pagesOf(created.key)).toEqual([pageB]);
    // A person who holds every permission of the application but sees no page cannot give one.
    const blindClerk = await member('BlindClerk', ['social.conversations.read', 'pos.orders.read', 'automation.connections.manage']);
    const readsMessages = await newApplication(admin, { permissions: ['social.conversations.read', 'pos.orders.read'], pages: [pageB] });
    const blind = await expectProblem(
      await blindClerk('PATCH', `/applications/${readsMessages.applicationId}`, { pages: [pageA] }),
      400,
      'validation-failed',
    );
    expect(blind.detail).toContain(pageA);
    expect((await application(readsMessages.applicationId)).pageIds).toEqual([pageB]);

    // Within both, the edit goes through.
    const chatOnly = await newApplication(chatClerk, { permissions: chat, pages: [pageA] });
    expect((await chatClerk('PATCH', `/applications/${chatOnly.applicationId}`, { pages: [pageA, pageB] })).status).toBe(200);
    expect(await pagesOf(chatOnly.key)).toEqual([pageA, pageB].sort());
  });
});
