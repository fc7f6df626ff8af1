import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer, createShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { generateApiKey, isWellFormedApiKey, LEAK_PATTERN } from '../../domain/access/api-key-format.js';
import { revokeKey, rotateKey, createKey } from '../../domain/access/api-keys.js';
import { updateShopSettings } from '../../domain/access/shops.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { addMember, updateMember } from '../../domain/access/users.js';

const { db, api, shop, request } = useSuite({
  api: {
    routes: (app) => {
      const routes = app.withTypeProvider<ZodTypeProvider>();
      // Stand-ins for resource routes: they declare permissions exactly as resource modules do.
      routes.get('/api/open/v1/test/orders', { config: { permissions: ['pos.orders.read'] } }, async () => ({ data: [] }));
      routes.post(
        '/api/open/v1/test/notes',
        { config: { permissions: ['pos.orders.update'] }, schema: { body: z.object({ message: z.string() }) } },
        async () => ({ ok: true }),
      );
    },
  },
  shop: true,
});

const get = (path: string, headers: Record<string, string> = {}) => request('GET', path, { headers });

function expectRateHeaders(response: Response, limit: number) {
  // Raw header values first: Number(null) is 0, so a missing header would pass a numeric check.
  expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
  expect(response.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(response.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeLessThanOrEqual(limit);
  expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
  const reset = Number(response.headers.get('x-ratelimit-reset'));
  expect(reset).toBeGreaterThanOrEqual(1);
  expect(reset).toBeLessThanOrEqual(60);
}

describe('API key format', () => {
  it('generates keys the leak-detection pattern finds, with a check code', () => {
    const keys = Array.from({ length: 200 }, generateApiKey);
    const text = `config: ${keys.join('\nconfig: ')}`;
    expect(text.match(LEAK_PATTERN)).toEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.every(isWellFormedApiKey)).toBe(true);
  });

  it('refuses a key whose check code is wrong', async () => {
    const { key } = await shop.newKey(['pos.orders.read']);
    const last = key.at(-1) === 'A' ? 'B' : 'A';
    const tampered = key.slice(0, -1) + last;
    expect(isWellFormedApiKey(tampered)).toBe(false);
    const body = await expectProblem(await get('/shop', bearer(tampered)), 401, 'invalid-api-key');
    expect(body.detail).toMatch(/malformed/);
  });
});

describe('authentication', () => {
  it('answers GET /shop for a valid key with the shop and its application', async () => {
    const { key } = await shop.newKey(['pos.orders.read', 'pos.products.read'], 'ERP sync');
    const response = await get('/shop', bearer(key));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      id: shop.shopId,
      slug: shop.slug,
      name: `Shop ${shop.slug}`,
      application: { name: 'ERP sync', permissions: ['pos.orders.read', 'pos.products.read'], pageIds: [] },
      readOnly: false,
    });
    expectRateHeaders(response, 600);
  });

  it.each([
    ['missing', {}],
    ['not Bearer', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['malformed', { authorization: 'Bearer svc_live_short' }],
    ['unknown', { authorization: `Bearer ${generateApiKey()}` }],
  ])('refuses a %s key with 401 invalid-api-key and rate headers', async (_case, headers) => {
    const response = await get('/shop', headers as Record<string, string>);
    await expectProblem(response, 401, 'invalid-api-key');
    expectRateHeaders(response, 600);
  });

  it('refuses a key in the query string, even a valid one, and never logs it', async () => {
    const { key } = await shop.newKey(['pos.orders.read']);
    const marker = randomUUID();
    await expectProblem(await get(`/shop?probe=${marker}&api_key=${key}`, bearer(key)), 401, 'invalid-api-key');
    const logs = api.logs.join('');
    // The request was logged (so the absence below means something), with the key redacted from its URL.
    expect(logs).toContain(`/api/open/v1/shop?probe=${marker}&api_key=svc_live_[redacted]`);
    expect(logs).not.toContain(key.slice(9));
  });

  it('refuses a revoked key on the very next request', async () => {
    const { key, keyId } = await shop.newKey(['pos.orders.read']);
    expect((await get('/shop', bearer(key))).status).toBe(200);
    await withShop(db.app, shop.shopId, (tx) => revokeKey(tx, keyId, shop.ownerId));
    await expectProblem(await get('/shop', bearer(key)), 401, 'invalid-api-key');
  });

  it('keeps the old key through the rotation overlap and refuses it once expired', async () => {
    const { key: oldKey, applicationId } = await shop.newKey(['pos.orders.read']);
    const rotated = await withShop(db.app, shop.shopId, (tx) => rotateKey(tx, applicationId, shop.ownerId, 24));
    expect((await get('/shop', bearer(oldKey))).status).toBe(200);
    expect((await get('/shop', bearer(rotated.key))).status).toBe(200);
    expect(rotated.previousKeysExpireAt.getTime() - Date.now()).toBeGreaterThan(23.9 * 3600_000);

    const immediate = await withShop(db.app, shop.shopId, (tx) => rotateKey(tx, applicationId, shop.ownerId, 0));
    for (const expired of [oldKey, rotated.key]) await expectProblem(await get('/shop', bearer(expired)), 401, 'invalid-api-key');
    expect((await get('/shop', bearer(immediate.key))).status).toBe(200);
  });

  it('keeps keys working when their creator leaves, is locked or changes password', async () => {
    const creator = await addMember(db.app, shop.shopId, { email: `creator-${Date.now()}@test.dev`, name: 'Creator' });
    const { applicationId } = await shop.newKey(['pos.orders.read']);
    const issued = await withShop(db.app, shop.shopId, (tx) => rotateKey(tx, applicationId, creator.id, 0));
    await updateMember(db.app, shop.shopId, creator.id, { password: 'a new password' });
    await updateMember(db.app, shop.shopId, creator.id, { locked: true });
    await updateMember(db.app, shop.shopId, creator.id, { status: 'left' });
    expect((await get('/shop', bearer(issued.key))).status).toBe(200);
  });
});

describe('shop states and permissions', () => {
  it('refuses every request of a suspended shop with 403 shop-suspended', async () => {
    const other = await createShopFixture(db.app);
    const { key } = await other.newKey(['pos.orders.read']);
    await updateShopSettings(db.app, other.shopId, { suspended: true });
    const response = await get('/shop', bearer(key));
    await expectProblem(response, 403, 'shop-suspended');
    expectRateHeaders(response, 600);
  });

  it('refuses a shop without the automation feature with 403 automation-not-active', async () => {
    const other = await createShopFixture(db.app);
    const { key } = await other.newKey(['pos.orders.read']);
    await updateShopSettings(db.app, other.shopId, { automationEnabled: false });
    await expectProblem(await get('/shop', bearer(key)), 403, 'automation-not-active');
  });

  it('serves reads of an expired plan and refuses writes with 402 subscription-expired', async () => {
    const other = await createShopFixture(db.app);
    const { key } = await other.newKey(['pos.orders.read', 'pos.orders.update']);
    await updateShopSettings(db.app, other.shopId, { plan: 'expired' });
    const shopResponse = await get('/shop', bearer(key));
    expect(((await shopResponse.json()) as { readOnly: boolean }).readOnly).toBe(true);
    expect((await get('/test/orders', bearer(key))).status).toBe(200);
    const write = await fetch(`${api.baseUrl}/api/open/v1/test/notes`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' }),
    });
    await expectProblem(write, 402, 'subscription-expired');
  });

  it('refuses a route whose permission the key lacks with 403 insufficient-permission', async () => {
    const { key } = await shop.newKey(['pos.products.read']);
    const body = await expectProblem(await get('/test/orders', bearer(key)), 403, 'insufficient-permission');
    expect(body.detail).toMatch(/pos\.orders\.read/);
  });

  it('checks suspension before permissions and permissions before the plan', async () => {
    const other = await createShopFixture(db.app);
    const { key } = await other.newKey(['pos.products.read']);
    await updateShopSettings(db.app, other.shopId, { plan: 'expired' });
    const write = () =>
      fetch(`${api.baseUrl}/api/open/v1/test/notes`, {
        method: 'POST',
        headers: { ...bearer(key), 'content-type': 'application/json' },
        body: '{"message":"x"}',
      });
    await expectProblem(await write(), 403, 'insufficient-permission');
    await updateShopSettings(db.app, other.shopId, { suspended: true });
    await expectProblem(await write(), 403, 'shop-suspended');
  });
});

describe('user-session paths', () => {
  it('answers an API key at logout and push registration with 400 api-key-not-accepted, elsewhere with 401', async () => {
    const { key } = await shop.newKey(['pos.orders.read']);
    for (const path of ['/api/admin/session/logout', '/api/admin/push-subscriptions']) {
      await expectProblem(await fetch(`${api.baseUrl}${path}`, { method: 'POST', headers: bearer(key) }), 400, 'api-key-not-accepted');
    }
    await expectProblem(await fetch(`${api.baseUrl}/api/admin/flows`, { headers: bearer(key) }), 401, 'invalid-api-key');
  });
});

describe('keys and applications', () => {
  it('allows at most two live keys per application', async () => {
    const { applicationId } = await shop.newKey(['pos.orders.read']);
    const second = await withShop(db.app, shop.shopId, (tx) => createKey(tx, applicationId, shop.ownerId));
    await expect(withShop(db.app, shop.shopId, (tx) => createKey(tx, applicationId, shop.ownerId))).rejects.toMatchObject({
      code: 'conflict',
    });
    await withShop(db.app, shop.shopId, (tx) => revokeKey(tx, second.keyId, shop.ownerId));
    await expect(withShop(db.app, shop.shopId, (tx) => createKey(tx, applicationId, shop.ownerId))).resolves.toMatchObject({
      key: expect.stringMatching(/^svc_live_/),
    });
  });

  it('writes every creation, rotation and revocation to the shop log under the acting person', async () => {
    const { applicationId, keyId } = await shop.newKey(['pos.orders.read']);
    const rotated = await withShop(db.app, shop.shopId, (tx) => rotateKey(tx, applicationId, shop.ownerId, 1));
    await withShop(db.app, shop.shopId, (tx) => revokeKey(tx, keyId, shop.ownerId));
    const entries = await withShop(
      db.app,
      shop.shopId,
      (tx) => tx<{ action: string; subjectId: string; actorUserId: string }[]>`
      select action, subject_id, actor_user_id from shop_log where subject_id in (${keyId}, ${rotated.keyId}) order by id`,
    );
    expect(entries).toEqual([
      { action: 'api_key.created', subjectId: keyId, actorUserId: shop.ownerId },
      { action: 'api_key.rotated', subjectId: rotated.keyId, actorUserId: shop.ownerId },
      { action: 'api_key.revoked', subjectId: keyId, actorUserId: shop.ownerId },
    ]);
  });
});
