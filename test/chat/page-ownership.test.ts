import { beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../domain/access/index.js';
import { ADMIN_PASSWORD, adminLogIn, logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

/**
 * Issue 26, item 2: a platform page id is public, so linking proves ownership with the platform
 * (`GET /me` with the page token), and a link can be removed. Over the real API, against the chat
 * simulator, whose webhooks reach the API.
 */
const { db, shop, api, chat } = useSuite({ api: true, shop: true, chat: true });
let rival: ShopFixture;
let ownerA: AdminRequest;
let ownerB: AdminRequest;
let viewerA: AdminRequest;

beforeAll(async () => {
  ({ admin: ownerA, viewer: viewerA } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
  rival = await createShopFixture(db.app);
  await addMember(db.app, rival.shopId, { email: 'rival@shop.test', name: 'Rival', password: ADMIN_PASSWORD });
  ownerB = await adminLogIn(api.baseUrl, { shop: rival.slug, email: 'rival@shop.test', password: ADMIN_PASSWORD });
});

const newPage = async (as: AdminRequest, name: string) => ((await (await as('POST', '/pages', { name })).json()) as { id: string }).id;
const link = (as: AdminRequest, pageId: string, platformPageId: string, accessToken: string) =>
  as('POST', `/pages/${pageId}/link`, { platformPageId, accessToken });
const connectedOf = async (as: AdminRequest, pageId: string) =>
  ((await (await as('GET', '/pages')).json()) as { data: { id: string; connected: boolean }[] }).data.find((page) => page.id === pageId)
    ?.connected;
/** The Shopflow page (and shop) a customer's message to the platform page was recorded for, if any. */
async function recordedFor(psid: string, text: string) {
  chat.platform.customerWrites(psid, { text });
  await chat.platform.webhooks.settled();
  return db.admin<{ shopId: string; pageId: string }[]>`select shop_id, page_id from chat_messages where text = ${text}`;
}
const answerOf = async (response: Response) => ({ status: response.status, body: (await response.json()) as unknown });

describe('linking a chat page', () => {
  it("refuses another shop's page id with a token that is not the page's, the same whether or not anyone linked it", async () => {
    const victim = chat.platform.createPage({ name: 'Shop A fanpage' });
    const rivalsOwn = chat.platform.createPage({ name: 'Shop B fanpage' });
    const customer = chat.platform.createCustomer(victim.page.id, { name: 'Lan Nguyen' });
    const pageA = await newPage(ownerA, 'Fanpage');
    const pageB = await newPage(ownerB, 'Stolen fanpage');
    const attempts = async () => [
      await answerOf(await link(ownerB, pageB, victim.page.id, rivalsOwn.accessToken)),
      await answerOf(await link(ownerB, pageB, victim.page.id, 'EAAmade-up-token')),
    ];

    const beforeAnyLink = await attempts();
    expect(beforeAnyLink.map(({ status, body }) => [status, (body as { code: string }).code])).toEqual([
      [422, 'page-not-connected'],
      [422, 'page-not-connected'],
    ]);
    const linked = await link(ownerA, pageA, victim.page.id, victim.accessToken);
    expect(await linked.json()).toEqual({ pageId: pageA, platformPageId: victim.page.id, connected: true });

    // The attack: shop B names shop A's public page id with B's own page token, then with a made-up one.
    expect(await attempts()).toEqual(beforeAnyLink);
    await expectProblem(await link(ownerB, pageB, victim.page.id, rivalsOwn.accessToken), 422, 'page-not-connected');
    expect(await connectedOf(ownerB, pageB)).toBe(false);
    expect(await connectedOf(ownerA, pageA)).toBe(true);
    expect(await recordedFor(customer.psid, 'còn size M không?')).toEqual([{ shopId: shop.shopId, pageId: pageA }]);
    // B's own page, with its own token, links.
    expect((await link(ownerB, pageB, rivalsOwn.page.id, rivalsOwn.accessToken)).status).toBe(200);
  });

  it('refuses an expired token, and answers 503 when the platform cannot say, linking nothing', async () => {
    const { page } = chat.platform.createPage({ name: 'Short-lived' });
    const pageA = await newPage(ownerA, 'Short-lived');
    const shortLived = chat.platform.issuePageToken(page.id, { expiresAt: new Date(chat.platform.clock.now().getTime() + 60_000) });
    chat.platform.clock.advance(120_000);
    const expired = await expectProblem(await link(ownerA, pageA, page.id, shortLived), 422, 'page-not-connected');
    expect(expired.detail).toMatch(/refuses this access token/);

    const token = chat.platform.issuePageToken(page.id);
    chat.platform.faults.inject({ kind: 'read', effect: 'unavailable', count: 1 });
    await expectProblem(await link(ownerA, pageA, page.id, token), 503, 'channel-unavailable');
    expect(await connectedOf(ownerA, pageA)).toBe(false);
    expect((await link(ownerA, pageA, page.id, token)).status).toBe(200);
  });

  it('refuses a malformed token or page id as bad input, and a page of another shop as not found', async () => {
    const { page, accessToken } = chat.platform.createPage({ name: 'Inputs' });
    const pageA = await newPage(ownerA, 'Inputs');
    await expectProblem(await link(ownerA, pageA, page.id, 'EAA with spaces'), 400, 'validation-failed');
    await expectProblem(await link(ownerA, pageA, 'not-digits', accessToken), 400, 'validation-failed');
    await expectProblem(await link(ownerB, pageA, page.id, accessToken), 404, 'not-found');
    await expectProblem(await link(viewerA, pageA, page.id, accessToken), 403, 'insufficient-permission');
  });

  it('lets a shop that proves the page with its token take it over from a stale link: the latest proven link wins', async () => {
    const { page, accessToken } = chat.platform.createPage({ name: 'Changes hands' });
    const customer = chat.platform.createCustomer(page.id, { name: 'Minh Tran' });
    const pageA = await newPage(ownerA, 'Old claim');
    const pageB = await newPage(ownerB, 'New owner');
    expect((await link(ownerA, pageA, page.id, accessToken)).status).toBe(200);

    // The page's admin gives shop B a token of the page: B proves it, and A's link is removed.
    expect((await link(ownerB, pageB, page.id, chat.platform.issuePageToken(page.id))).status).toBe(200);
    expect(await connectedOf(ownerA, pageA)).toBe(false);
    expect(await db.admin`select page_id from chat_page_links where platform_page_id = ${page.id}`).toEqual([{ pageId: pageB }]);
    expect(await recordedFor(customer.psid, 'shop mới?')).toEqual([{ shopId: rival.shopId, pageId: pageB }]);
  });
});

describe('unlinking a chat page', () => {
  it('removes the link: the page is not connected, its webhooks are no longer recorded, its conversations stay', async () => {
    const { page, accessToken } = chat.platform.createPage({ name: 'Leaving' });
    const customer = chat.platform.createCustomer(page.id, { name: 'Hoa Le' });
    const pageA = await newPage(ownerA, 'Leaving');
    expect((await link(ownerA, pageA, page.id, accessToken)).status).toBe(200);
    expect(await recordedFor(customer.psid, 'trước khi gỡ')).toHaveLength(1);

    await expectProblem(await viewerA('DELETE', `/pages/${pageA}/link`), 403, 'insufficient-permission');
    await expectProblem(await ownerB('DELETE', `/pages/${pageA}/link`), 404, 'not-found');
    expect(await connectedOf(ownerA, pageA)).toBe(true);
    expect((await ownerA('DELETE', `/pages/${pageA}/link`)).status).toBe(204);
    expect(await connectedOf(ownerA, pageA)).toBe(false);
    expect(await recordedFor(customer.psid, 'sau khi gỡ')).toEqual([]);
    expect(await db.admin`select id from chat_conversations where page_id = ${pageA}`).toHaveLength(1);
    // Unlinking again changes nothing; linking again with the page's token connects it again.
    expect((await ownerA('DELETE', `/pages/${pageA}/link`)).status).toBe(204);
    expect((await link(ownerA, pageA, page.id, accessToken)).status).toBe(200);
    expect(await connectedOf(ownerA, pageA)).toBe(true);
  });
});
