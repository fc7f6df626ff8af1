import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { CHAT_WEBHOOK_PATH } from '../../api/routes/chat/chat-webhook.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { addCustomer } from '../../scripts/fixtures/index.js';
import { DEFAULT_APP_SECRET, hubSignature256 } from '../../simulators/chat/index.js';
import { useSuite } from '../support/suite.js';
import { linkedPage, simulatorOwnerOf } from './chat-fixtures.js';

const VERIFY_TOKEN = 'let-me-in';

/** The API's webhook route as buildApp registers it, with the simulator's app secret and its platform address (profiles). */
const { db, api, shop, chat: simulator } = useSuite({ api: true, shop: true, chat: { verifyToken: VERIFY_TOKEN } });

/** A simulator page linked to a page of the shop, with a customer. */
async function linkedSimulatorPage(profile: { name: string; phone?: string } = { name: 'Lan Nguyen' }) {
  const { page, accessToken } = simulator.platform.createPage({ name: 'Shop page' });
  const { pageId } = await linkedPage(db.app, shop.shopId, { platformPageId: page.id, accessToken, ownerOf: simulatorOwnerOf(simulator) });
  const customer = simulator.platform.createCustomer(page.id, profile);
  return { platformPageId: page.id, pageId, psid: customer.psid };
}

const post = (body: string, signature: string | undefined) =>
  request(`${api.baseUrl}${CHAT_WEBHOOK_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature ? { 'x-hub-signature-256': signature } : {}) },
    body,
  });

const messagesOfPage = (pageId: string) =>
  db.admin<{ id: string; text: string }[]>`select id, text from chat_messages where page_id = ${pageId}`;

describe('POST /platform/chat/webhook', () => {
  it('records a customer message and a comment the platform sends, and answers 200', async () => {
    const { platformPageId, pageId, psid } = await linkedSimulatorPage();
    simulator.platform.customerWrites(psid, { text: 'còn hàng không?' });
    const postOnPage = simulator.platform.createPost(platformPageId, { message: 'New arrivals' });
    simulator.platform.customerComments(postOnPage.id, { psid, message: 'giá?' });
    await simulator.platform.webhooks.settled();
    expect(
      simulator.platform.webhookDeliveries().map((delivery) => [delivery.state, delivery.attempts.map((attempt) => attempt.status)]),
    ).toEqual([
      ['delivered', [200]],
      ['delivered', [200]],
    ]);
    const [message] = await messagesOfPage(pageId);
    expect(message?.text).toBe('còn hàng không?');
    expect(await db.admin`select id from events where type = 'message.received' and resource_id = ${message!.id}`).toHaveLength(1);
    expect(await db.admin`select text from chat_comments where page_id = ${pageId}`).toEqual([{ text: 'giá?' }]);
  });

  it("asks the platform for a new customer's profile: the name, and the phone that links the shop's customer", async () => {
    const known = await withShop(db.app, shop.shopId, (tx) => addCustomer(tx, shop.shopId, { name: 'Mai', phone: '+84912345678' }));
    const { pageId, psid } = await linkedSimulatorPage({ name: 'Mai Tran', phone: '0912 345 678' });
    simulator.platform.customerWrites(psid, { text: 'chào shop' });
    await simulator.platform.webhooks.settled();
    const [customer] = await db.admin<
      { name: string; phone: string; customerId: string }[]
    >`select name, phone, customer_id from chat_customers where page_id = ${pageId}`;
    expect(customer).toEqual({ name: 'Mai Tran', phone: '+84912345678', customerId: known.id });
  });

  it('asks for a profile only while the page does not know the customer by name', async () => {
    const { pageId, psid } = await linkedSimulatorPage({ name: 'Lan Nguyen' });
    simulator.platform.customerWrites(psid, { text: 'chào shop' });
    await simulator.platform.webhooks.settled();
    simulator.platform.store.customer(psid).name = 'Lan Tran';
    simulator.platform.customerWrites(psid, { text: 'còn size M không?' });
    await simulator.platform.webhooks.settled();
    expect(await messagesOfPage(pageId)).toHaveLength(2);
    expect(await db.admin`select name from chat_customers where page_id = ${pageId}`).toEqual([{ name: 'Lan Nguyen' }]);
  });

  it('stores a webhook delivered twice once', async () => {
    const { pageId, psid } = await linkedSimulatorPage();
    const { webhook } = simulator.platform.customerWrites(psid, { text: 'hello' });
    await simulator.platform.webhooks.settled();
    const again = await post(webhook!.body, webhook!.signature);
    expect(again.statusCode).toBe(200);
    expect(await messagesOfPage(pageId)).toHaveLength(1);
  });

  it('ignores a replayed comment edit older than the stored text (issue 26)', async () => {
    const { platformPageId, pageId, psid } = await linkedSimulatorPage();
    const postOnPage = simulator.platform.createPost(platformPageId, { message: 'Sale' });
    const { comment } = simulator.platform.customerComments(postOnPage.id, { psid, message: 'giá?' });
    simulator.platform.clock.advance(5_000);
    const { webhook: olderEdit } = simulator.platform.customerEditsComment(comment.id, 'giá bao nhiêu?');
    simulator.platform.clock.advance(5_000);
    simulator.platform.customerEditsComment(comment.id, 'giá bao nhiêu ạ? ship HN');
    await simulator.platform.webhooks.settled();
    const stored = () => db.admin`select text from chat_comments where page_id = ${pageId}`;
    expect(await stored()).toEqual([{ text: 'giá bao nhiêu ạ? ship HN' }]);

    // The older edit, signed by the platform, delivered again after the newer one.
    expect((await post(olderEdit!.body, olderEdit!.signature)).statusCode).toBe(200);
    expect(await stored()).toEqual([{ text: 'giá bao nhiêu ạ? ship HN' }]);
  });

  it('answers 401 to a body that does not match its signature, and records nothing', async () => {
    const { pageId, psid } = await linkedSimulatorPage();
    const { webhook } = simulator.platform.customerWrites(psid, { text: 'real' });
    await simulator.platform.webhooks.settled();
    await db.admin`delete from chat_messages where page_id = ${pageId}`;
    const tampered = await post(webhook!.body.replace('real', 'fake'), webhook!.signature);
    expect(tampered.statusCode).toBe(401);
    expect(await tampered.body.json()).toMatchObject({ code: 'invalid-signature', status: 401 });
    expect((await post(webhook!.body, undefined)).statusCode).toBe(401);
    expect((await post(webhook!.body, hubSignature256(webhook!.body, 'another-secret'))).statusCode).toBe(401);
    expect(await messagesOfPage(pageId)).toHaveLength(0);
  });

  it('answers 200 for a platform page no shop linked, and 5xx when it cannot record (so the platform retries)', async () => {
    const { page } = simulator.platform.createPage({ name: 'Nobody’s page' });
    const stranger = simulator.platform.createCustomer(page.id, { name: 'X' });
    simulator.platform.customerWrites(stranger.psid, { text: 'hi' });
    await simulator.platform.webhooks.settled();
    expect(simulator.platform.webhookDeliveries().at(-1)?.state).toBe('delivered');

    const { platformPageId, pageId, psid } = await linkedSimulatorPage();
    // A text the database refuses (over 5,000 characters) stands for any failure to record.
    const body = JSON.stringify({
      object: 'page',
      entry: [
        {
          id: platformPageId,
          time: Date.now(),
          messaging: [
            {
              sender: { id: psid },
              recipient: { id: platformPageId },
              timestamp: Date.now(),
              message: { mid: 'm_too_long', text: 'x'.repeat(5001) },
            },
          ],
        },
      ],
    });
    const answer = await post(body, hubSignature256(body, DEFAULT_APP_SECRET));
    expect(answer.statusCode).toBe(500);
    expect(await messagesOfPage(pageId)).toHaveLength(0);
  });

  it('answers the subscription check with the challenge for our verify token only', async () => {
    const app = simulator.platform.defaultApp;
    const callbackUrl = `${api.baseUrl}${CHAT_WEBHOOK_PATH}`;
    await expect(simulator.platform.subscribeApp(app, { callbackUrl, verifyToken: 'wrong', fields: ['messages', 'feed'] })).rejects.toThrow(
      /challenge/,
    );
    await simulator.platform.subscribeApp(app, { callbackUrl, verifyToken: VERIFY_TOKEN, fields: ['messages', 'feed'] });
    expect(app.verifyToken).toBe(VERIFY_TOKEN);
  });
});
