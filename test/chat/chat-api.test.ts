import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { unlinkPage } from '../../domain/chat/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { chatKey, simulatorPage } from './chat-fixtures.js';

const { db, shop, chat, request } = useSuite({ api: true, shop: true, chat: true });

type Page = Awaited<ReturnType<typeof simulatorPage>>;
let page: Page;
let otherPage: Page;
let key: string;

beforeAll(async () => {
  page = await simulatorPage(db.app, shop.shopId, chat, ['Lan Nguyen', 'Minh Tran']);
  otherPage = await simulatorPage(db.app, shop.shopId, chat, ['Hoa Le']);
  key = await chatKey(db.app, shop, [page.pageId]);
});

const send = (conversationId: string, body: unknown, options: { key?: string; headers?: Record<string, string> } = {}) =>
  request('POST', `/conversations/${conversationId}/messages`, { key: options.key ?? key, body, headers: options.headers });
const json = async <T = Record<string, unknown>>(response: Response, status = 200) => {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
};
const storedMessages = (conversationId: string) =>
  db.admin<{ id: string; text: string | null }[]>`select id, text from chat_messages where conversation_id = ${conversationId}`;
const sentEvents = (conversationId: string) =>
  db.admin`select e.id from events e join chat_messages m on m.id = e.resource_id where e.type = 'message.sent' and m.conversation_id = ${conversationId}`;

describe('reading conversations and messages', () => {
  it("lists the key's conversations newest first, with their messages, and nothing of other pages", async () => {
    const list = await json<{ data: { id: string; pageId: string; canReply: boolean; snippet: string }[] }>(
      await request('GET', '/conversations', { key }),
    );
    // The two customers write at once: their webhooks may be recorded in either order, and the list
    // follows the recorded `lastMessageAt`, newest first.
    const recorded = await db.admin<{ id: string }[]>`
      select c.id from chat_conversations c
      where c.id in ${db.admin(page.customers.map((customer) => customer.conversationId))}
      order by c.last_message_at desc, c.id desc`;
    expect(list.data.map((conversation) => conversation.id)).toEqual(recorded.map((row) => row.id));
    expect(list.data[0]).toMatchObject({ pageId: page.pageId, canReply: true });
    expect(list.data.map((conversation) => conversation.snippet).sort()).toEqual(['Hello from Lan Nguyen', 'Hello from Minh Tran']);
    const paged = await json<{ data: unknown[]; nextCursor: string }>(await request('GET', '/conversations?limit=1', { key }));
    const next = await json<{ data: { id: string }[] }>(await request('GET', `/conversations?limit=1&cursor=${paged.nextCursor}`, { key }));
    expect(next.data.map((conversation) => conversation.id)).toEqual([recorded[1]!.id]);
    expect((await json<{ data: unknown[] }>(await request('GET', `/conversations?pageId=${otherPage.pageId}`, { key }))).data).toEqual([]);

    const messages = await json<{ data: { text: string; direction: string; sender: object }[] }>(
      await request('GET', `/conversations/${page.customers[0]!.conversationId}/messages`, { key }),
    );
    expect(messages.data).toMatchObject([
      { text: 'Hello from Lan Nguyen', direction: 'in', sender: { type: 'customer', name: 'Lan Nguyen' } },
    ]);
  });

  it("answers 404 not-found for another page's conversation, messages and sends, as for one that does not exist", async () => {
    const foreign = otherPage.customers[0]!.conversationId;
    await expectProblem(await request('GET', `/conversations/${foreign}`, { key }), 404, 'not-found');
    await expectProblem(await request('GET', `/conversations/${foreign}/messages`, { key }), 404, 'not-found');
    await expectProblem(await send(foreign, { text: 'hi' }), 404, 'not-found');
    await expectProblem(await send(randomUUID(), { text: 'hi' }), 404, 'not-found');
    expect(chat.platform.sentMessages(otherPage.platformPageId)).toEqual([]);
  });

  it('needs social.conversations.read to read and social.messages.send to send', async () => {
    const reader = await chatKey(db.app, shop, [page.pageId], ['social.pages.read', 'social.conversations.read']);
    const pagesOnly = await chatKey(db.app, shop, [page.pageId], ['social.pages.read']);
    await expectProblem(await request('GET', '/conversations', { key: pagesOnly }), 403, 'insufficient-permission');
    await expectProblem(await send(page.customers[0]!.conversationId, { text: 'hi' }, { key: reader }), 403, 'insufficient-permission');
  });
});

describe('sending', () => {
  it('sends text and an attachment through the platform, records each with message.sent, and replays an Idempotency-Key', async () => {
    const { conversationId, psid } = page.customers[0]!;
    const headers = { 'idempotency-key': randomUUID() };
    const sent = await json<{ id: string; direction: string; sender: object; text: string }>(
      await send(conversationId, { text: 'Dạ còn size M ạ' }, { headers }),
      201,
    );
    expect(sent).toMatchObject({ direction: 'out', text: 'Dạ còn size M ạ', sender: { type: 'page', isIntegration: true } });
    const replay = await send(conversationId, { text: 'Dạ còn size M ạ' }, { headers });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await json<{ id: string }>(replay, 201)).id).toBe(sent.id);
    const image = { type: 'image', url: 'https://cdn.example/m.png' };
    expect(await json(await send(conversationId, { attachments: [image] }), 201)).toMatchObject({ text: null, attachments: [image] });

    expect(chat.platform.sentMessages(page.platformPageId).filter((message) => message.psid === psid)).toMatchObject([
      { text: 'Dạ còn size M ạ', attachments: [] },
      { attachments: [image] },
    ]);
    expect(await storedMessages(conversationId)).toHaveLength(3);
    expect(await sentEvents(conversationId)).toHaveLength(2);
    await expectProblem(await send(conversationId, { text: 'a', attachments: [image] }), 400, 'validation-failed');
    await expectProblem(await send(conversationId, {}), 400, 'validation-failed');
  });

  it('does not record twice a send the platform echoes back (message_echoes)', async () => {
    const { conversationId } = page.customers[1]!;
    chat.platform.defaultApp.fields.add('message_echoes');
    try {
      const before = (await storedMessages(conversationId)).length;
      await json(await send(conversationId, { text: 'echoed once' }), 201);
      await chat.platform.webhooks.settled();
      expect(
        chat.platform
          .webhookDeliveries()
          .filter((delivery) => delivery.summary.startsWith('echo'))
          .at(-1)?.state,
      ).toBe('delivered');
      expect(await storedMessages(conversationId)).toHaveLength(before + 1);
      expect((await storedMessages(conversationId)).filter((message) => message.text === 'echoed once')).toHaveLength(1);
    } finally {
      chat.platform.defaultApp.fields.delete('message_echoes');
    }
  });

  it('answers 422 messaging-window-closed once 24 hours passed since the customer wrote, until they write again', async () => {
    const fresh = await simulatorPage(db.app, shop.shopId, chat, ['Late']);
    const lateKey = await chatKey(db.app, shop, [fresh.pageId]);
    const { conversationId, psid } = fresh.customers[0]!;
    // The platform's clock is the judge: 25 hours after the customer wrote.
    chat.platform.clock.advance(25 * 3_600_000);
    try {
      await expectProblem(await send(conversationId, { text: 'too late' }, { key: lateKey }), 422, 'messaging-window-closed');
      expect(await sentEvents(conversationId)).toHaveLength(0);
      chat.platform.customerWrites(psid, { text: 'still there?' });
      await chat.platform.webhooks.settled();
      await json(await send(conversationId, { text: 'yes!' }, { key: lateKey }), 201);
    } finally {
      chat.platform.clock.set(new Date());
    }
  });

  it('answers 422 conversation-not-replyable when the customer cannot be reached (blocked the page)', async () => {
    const fresh = await simulatorPage(db.app, shop.shopId, chat, ['Blocker']);
    const { conversationId, psid } = fresh.customers[0]!;
    chat.platform.setCustomerAvailable(psid, false);
    await expectProblem(
      await send(conversationId, { text: 'hi' }, { key: await chatKey(db.app, shop, [fresh.pageId]) }),
      422,
      'conversation-not-replyable',
    );
    expect(await sentEvents(conversationId)).toHaveLength(0);
  });

  it('answers 503 channel-unavailable when the platform fails, throttles or drops the answer, and records nothing', async () => {
    const fresh = await simulatorPage(db.app, shop.shopId, chat, ['Patient']);
    const freshKey = await chatKey(db.app, shop, [fresh.pageId]);
    const { conversationId } = fresh.customers[0]!;
    for (const effect of ['unavailable', 'throttled', 'drop-after-accept'] as const) {
      chat.platform.faults.inject({ kind: 'send', effect, count: 1 });
      await expectProblem(await send(conversationId, { text: `during ${effect}` }, { key: freshKey }), 503, 'channel-unavailable');
    }
    expect(await sentEvents(conversationId)).toHaveLength(0);
    expect(await storedMessages(conversationId)).toHaveLength(1);
  });

  it('answers 422 page-not-connected for a conversation kept after its page was unlinked, without asking the platform', async () => {
    const unlinked = await simulatorPage(db.app, shop.shopId, chat, ['Left behind']);
    const unlinkedKey = await chatKey(db.app, shop, [unlinked.pageId]);
    const { conversationId } = unlinked.customers[0]!;
    await withShop(db.app, shop.shopId, (tx) => unlinkPage(tx, unlinked.pageId));
    // Refused without a call: an injected outage would otherwise answer 503.
    chat.platform.faults.inject({ kind: 'send', effect: 'unavailable', count: 1 });
    try {
      await expectProblem(await send(conversationId, { text: 'còn đó không?' }, { key: unlinkedKey }), 422, 'page-not-connected');
    } finally {
      chat.platform.faults.clear();
    }
    expect(await sentEvents(conversationId)).toHaveLength(0);
    expect(await storedMessages(conversationId)).toHaveLength(1);
  });

  it('answers 422 page-not-connected once the page removed the app, marks the page disconnected and stops asking', async () => {
    const fresh = await simulatorPage(db.app, shop.shopId, chat, ['Gone']);
    const freshKey = await chatKey(db.app, shop, [fresh.pageId]);
    const { conversationId } = fresh.customers[0]!;
    const connected = async () => (await json<{ data: { connected: boolean }[] }>(await request('GET', '/pages', { key: freshKey }))).data;
    expect(await connected()).toMatchObject([{ connected: true }]);
    chat.platform.disconnectPage(fresh.platformPageId);
    await expectProblem(await send(conversationId, { text: 'hello?' }, { key: freshKey }), 422, 'page-not-connected');
    expect(await connected()).toMatchObject([{ connected: false }]);
    expect(await json(await request('GET', `/conversations/${conversationId}`, { key: freshKey }))).toMatchObject({ canReply: false });
    // Refused without a call: an injected outage would otherwise answer 503.
    chat.platform.faults.inject({ kind: 'send', effect: 'unavailable', count: 1 });
    await expectProblem(await send(conversationId, { text: 'hello?' }, { key: freshKey }), 422, 'page-not-connected');
    chat.platform.faults.clear();
    expect(await sentEvents(conversationId)).toHaveLength(0);
  });
});

describe('two keys on one page', () => {
  it('count sends per key (60 a minute, apart from the general counter), while the platform caps the page for both', async () => {
    const shared = await simulatorPage(db.app, shop.shopId, chat, ['Busy']);
    const [first, second] = [await chatKey(db.app, shop, [shared.pageId]), await chatKey(db.app, shop, [shared.pageId])];
    const { conversationId } = shared.customers[0]!;

    // The platform's cap is the page's, whichever key sends: two by the first key, one by the second, then no more.
    chat.platform.setSendCap(shared.platformPageId, 3);
    await json(await send(conversationId, { text: '1' }, { key: first }), 201);
    await json(await send(conversationId, { text: '2' }, { key: first }), 201);
    await json(await send(conversationId, { text: '3' }, { key: second }), 201);
    await expectProblem(await send(conversationId, { text: '4' }, { key: second }), 503, 'channel-unavailable');
    chat.platform.setSendCap(shared.platformPageId, 1000);

    // The first key's message counter: every send counts (refused ones too), 60 a minute.
    const counted = await send(randomUUID(), { text: 'x' }, { key: first });
    expect(counted.headers.get('x-ratelimit-limit')).toBe('60');
    const remaining = Number(counted.headers.get('x-ratelimit-remaining'));
    for (let index = 0; index < remaining; index += 1) expect((await send(randomUUID(), { text: 'x' }, { key: first })).status).toBe(404);
    const limited = await send(conversationId, { text: 'over' }, { key: first });
    await expectProblem(limited, 429, 'rate-limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Reads are on the general counter; the second key's sends on its own.
    const read = await request('GET', '/conversations', { key: first });
    expect({ status: read.status, limit: read.headers.get('x-ratelimit-limit') }).toEqual({ status: 200, limit: '600' });
    await json(await send(conversationId, { text: 'second key still sends' }, { key: second }), 201);
  });
});
