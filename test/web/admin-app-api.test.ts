import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, updateMember } from '../../domain/access/index.js';
import { ADMIN_PASSWORD as PASSWORD, adminLogIn, logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { bearer } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

const { db, api, shop, receiver, chat, get } = useSuite({ api: true, shop: true, receiver: true, worker: true, chat: true });
let owner: AdminRequest;
let viewer: AdminRequest;

beforeAll(async () => {
  ({ admin: owner, viewer } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
});

describe('the admin OpenAPI document', () => {
  it('holds only the admin paths, with the session cookie as security', async () => {
    const document = (await (await fetch(`${api.baseUrl}/api/admin/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
      components: { securitySchemes: Record<string, unknown> };
    };
    const paths = Object.keys(document.paths);
    expect(paths).toContain('/api/admin/applications');
    expect(paths).toContain('/api/admin/flows/{id}/deliveries');
    expect(paths.every((path) => path.startsWith('/api/admin/'))).toBe(true);
    expect(document.components.securitySchemes).toHaveProperty('session');
  });
});

describe('the choices', () => {
  it('lists event types, permission families and, for a member who reads pages, the pages', async () => {
    const choices = (await (await owner('GET', '/choices')).json()) as {
      eventTypes: { type: string; needsPage: boolean }[];
      permissionFamilies: { family: string; permissions: string[] }[];
    };
    expect(choices.eventTypes).toContainEqual(expect.objectContaining({ type: 'message.received', needsPage: true }));
    expect(choices.permissionFamilies.find((family) => family.family === 'pos.orders')!.permissions).toContain('pos.orders.read');
    expect(((await (await viewer('GET', '/choices')).json()) as { pages: unknown[] }).pages).toEqual([]);
  });
});

describe('API connections', () => {
  it('creates an application whose key works once shown, rotates with overlap and revokes', async () => {
    const created = await owner('POST', '/applications', { name: 'ERP', permissions: ['pos.orders.read'] });
    expect(created.status).toBe(201);
    const { applicationId, key } = (await created.json()) as { applicationId: string; key: string };
    expect((await get('/shop', key)).status).toBe(200);

    // Used: the list says when (to the minute).
    const firstUse = (await (await owner('GET', '/applications')).json()) as {
      data: { id: string; keys: { lastUsedAt: string | null }[] }[];
    };
    const usedAt = firstUse.data.find((application) => application.id === applicationId)!.keys[0]!.lastUsedAt;
    expect(Math.abs(Date.parse(usedAt!) - Date.now())).toBeLessThan(60_000);

    const rotated = await owner('POST', `/applications/${applicationId}/rotate`, { overlapHours: 2 });
    const { key: second, keyId } = (await rotated.json()) as { key: string; keyId: string };
    expect((await get('/shop', key)).status).toBe(200);
    expect((await get('/shop', second)).status).toBe(200);

    const listed = (await (await owner('GET', '/applications')).json()) as {
      data: {
        id: string;
        keys: { id: string; live: boolean; expiresAt: string | null; lastUsedAt: string | null; displayPrefix: string }[];
      }[];
      limits: { applications: number; liveKeys: number };
    };
    expect(listed.limits).toMatchObject({ applications: 10, liveKeys: 2 });
    const keys = listed.data.find((application) => application.id === applicationId)!.keys;
    expect(keys).toHaveLength(2);
    expect(keys.map((listedKey) => listedKey.lastUsedAt === null)).toEqual([false, false]);
    expect(keys[0]).toMatchObject({ id: keyId, live: true, expiresAt: null });
    expect(keys[1]!.expiresAt).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain(second);

    expect((await owner('POST', `/keys/${keyId}/revoke`)).status).toBe(200);
    expect((await get('/shop', second)).status).toBe(401);
  });

  it('labels an application whose creator left', async () => {
    await addMember(db.app, shop.shopId, { email: 'leaver@shop.test', name: 'Leaver', password: PASSWORD });
    const leaver = await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'leaver@shop.test', password: PASSWORD });
    const { applicationId } = (await (
      await leaver('POST', '/applications', { name: 'Old', permissions: ['pos.products.read'] })
    ).json()) as {
      applicationId: string;
    };
    const [member] = await db.admin<{ userId: string }[]>`select id as user_id from users where email = 'leaver@shop.test'`;
    await updateMember(db.app, shop.shopId, member!.userId, { status: 'left' });
    const listed = (await (await owner('GET', '/applications')).json()) as { data: { id: string; creatorAlert: string | null }[] };
    expect(listed.data.find((application) => application.id === applicationId)!.creatorAlert).toBe('left');
  });

  it('is refused to a member without automation.connections.manage', async () => {
    await expectProblem(await viewer('GET', '/applications'), 403, 'insufficient-permission');
    await expectProblem(
      await viewer('POST', '/applications', { name: 'X', permissions: ['pos.orders.read'] }),
      403,
      'insufficient-permission',
    );
  });
});

describe('shop set-up', () => {
  it('creates and lists warehouses, tags, payment methods and sales channels', async () => {
    for (const [path, body] of [
      ['/warehouses', { name: 'Kho Q1', address: '1 Lê Lợi' }],
      ['/tags', { name: 'VIP' }],
      ['/payment-methods', { name: 'Tiền mặt', kind: 'cash' }],
      ['/sales-channels', { name: 'Website' }],
    ] as const) {
      const created = await owner('POST', path, body);
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject(body);
      expect(((await (await owner('GET', path)).json()) as { data: unknown[] }).data).toContainEqual(expect.objectContaining(body));
      await expectProblem(await viewer('POST', path, body), 403, 'insufficient-permission');
    }
  });

  it('narrows the order status matrix and gives a move back', async () => {
    const narrowed = await owner('POST', '/order-statuses', { remove: [['new', 'confirmed']] });
    const { matrix, defaultMatrix } = (await narrowed.json()) as {
      matrix: Record<string, string[]>;
      defaultMatrix: Record<string, string[]>;
    };
    expect(defaultMatrix.new).toContain('confirmed');
    expect(matrix.new).not.toContain('confirmed');
    const restored = (await (await owner('POST', '/order-statuses', { restore: [['new', 'confirmed']] })).json()) as {
      matrix: Record<string, string[]>;
    };
    expect(restored.matrix.new).toContain('confirmed');
  });

  it('creates a chat page and links it to its platform page', async () => {
    const page = (await (await owner('POST', '/pages', { name: 'Fanpage' })).json()) as { id: string };
    const platform = chat.platform.createPage({ name: 'Fanpage' });
    const linked = await owner('POST', `/pages/${page.id}/link`, { platformPageId: platform.page.id, accessToken: platform.accessToken });
    expect(await linked.json()).toEqual({ pageId: page.id, platformPageId: platform.page.id, connected: true });
    const pages = (await (await owner('GET', '/pages')).json()) as { data: { id: string }[] };
    expect(pages.data.map((listed) => listed.id)).toContain(page.id);
    await expectProblem(
      await viewer('POST', `/pages/${page.id}/link`, { platformPageId: '1', accessToken: 't' }),
      403,
      'insufficient-permission',
    );
  });
});

describe('flows in the web app', () => {
  it('test-runs with the signed request, lists the last delivery and filters the history', async () => {
    const inbox = receiver.url('web-app');
    const created = await owner('POST', '/flows', {
      name: 'Orders',
      eventType: 'order.created',
      url: inbox,
      permissions: ['pos.orders.read'],
    });
    const { flow } = (await created.json()) as { flow: { id: string } };
    const run = (await (await owner('POST', `/flows/${flow.id}/test-run`)).json()) as {
      attempt: { statusCode: number };
      request: { headers: Record<string, string>; body: string; url: string };
    };
    expect(run.attempt.statusCode).toBe(200);
    expect(run.request.url).toBe(inbox);
    const [received] = receiver.received('web-app');
    expect(run.request.headers['webhook-signature']).toBe(received!.headers['webhook-signature']);
    expect(run.request.body).toBe(received!.body);

    const flows = (await (await viewer('GET', '/flows')).json()) as { data: { id: string; lastDelivery: { status: string } | null }[] };
    expect(flows.data.find((listed) => listed.id === flow.id)!.lastDelivery).toMatchObject({ status: 'delivered' });
    const page = async (query: string) =>
      (await (await viewer('GET', `/flows/${flow.id}/deliveries?${query}`)).json()) as { data: unknown[]; nextOffset: number | null };
    expect(await page('status=delivered&limit=1')).toMatchObject({ data: [expect.anything()], nextOffset: null });
    expect((await page('status=failed')).data).toEqual([]);
    expect((await page('eventType=product.created')).data).toEqual([]);
  });
});

describe('the built web app', () => {
  it('is served under /admin with a strict Content-Security-Policy when built', async () => {
    const response = await fetch(`${api.baseUrl}/admin/`);
    if (response.status === 404) return; // not built: `npm test` builds it before the suite
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'; style-src 'self'/);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('answers an API key with a refusal on the admin API', async () => {
    const { key } = await shop.newKey(['pos.orders.read']);
    expect((await fetch(`${api.baseUrl}/api/admin/applications`, { headers: bearer(key) })).status).toBeGreaterThanOrEqual(400);
  });
});
