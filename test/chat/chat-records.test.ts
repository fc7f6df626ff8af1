import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChatCommentSchema,
  ChatConversationSchema,
  ChatMessageSchema,
  getConversation,
  linkedPageOf,
  linkPage,
  listConversations,
  listMessages,
  pageLink,
  recordCommentChange,
  recordInboundWebhook,
  recordWebhookMessage,
  type InboundItem,
} from '../../domain/chat/index.js';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import { addCustomer } from '../../scripts/fixtures/index.js';
import { createShopFixture, testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { cursorBinding, linkedPage } from './chat-fixtures.js';

const { db, shop } = useSuite({ shop: true });

const inTheShop = <T>(work: Parameters<typeof withShop<T>>[2]) => withShop(db.app, shop.shopId, work);

function inbound(pageId: string, psid: string, text: string, extra: { mid?: string; sentAt?: Date; name?: string; phone?: string } = {}) {
  return inTheShop((tx) =>
    recordWebhookMessage(tx, shop.shopId, {
      direction: 'in',
      pageId,
      customer: { platformCustomerId: psid, name: extra.name ?? 'Lan Nguyen', phone: extra.phone },
      platformMessageId: extra.mid ?? `m_${randomUUID()}`,
      text,
      attachments: [],
      sentAt: extra.sentAt ?? new Date(),
    }),
  );
}

const eventsOf = (type: string, resourceId: string) =>
  db.admin<{ data: Record<string, unknown> }[]>`select data from events where type = ${type} and resource_id = ${resourceId}`;

describe('page links', () => {
  it('keep the page token encrypted at rest, open it for the page, and tell an inbound webhook its shop', async () => {
    const { pageId, platformPageId, accessToken } = await linkedPage(db.app, shop.shopId);
    const [stored] = await db.admin<
      { encryptedAccessToken: Buffer }[]
    >`select encrypted_access_token from chat_page_links where page_id = ${pageId}`;
    expect(stored!.encryptedAccessToken.includes(Buffer.from(accessToken))).toBe(false);
    expect(await inTheShop((tx) => pageLink(tx, pageId, testSecretsKey))).toEqual({ pageId, platformPageId, accessToken, connected: true });
    // No shop set: the webhook finds the link by its platform page id, and nothing else.
    expect(await db.app.begin((tx) => linkedPageOf(tx, platformPageId))).toEqual({ shopId: shop.shopId, pageId });
    expect(await db.app.begin((tx) => linkedPageOf(tx, 'no-such-page'))).toBeUndefined();
    expect(await db.app`select page_id from chat_page_links`).toHaveLength(0);
  });

  it("refuse another shop's page", async () => {
    const other = await createShopFixture(db.app);
    const { pageId } = await linkedPage(db.app, other.shopId);
    expect(await inTheShop((tx) => pageLink(tx, pageId, testSecretsKey))).toBeUndefined();
    await expect(
      inTheShop((tx) =>
        linkPage(tx, shop.shopId, { pageId, platformPageId: '1', accessToken: 'y' }, testSecretsKey, () => {
          throw new Error('the platform is not asked for a page the shop does not have');
        }),
      ),
    ).rejects.toMatchObject({ code: 'not-found' });
  });
});

describe('inbound messages', () => {
  it('store the customer, conversation and message, and write message.received with the message as data', async () => {
    const { pageId } = await linkedPage(db.app, shop.shopId);
    const psid = `psid-${randomUUID()}`;
    const { message, created } = await inbound(pageId, psid, 'còn hàng không?');
    expect(created).toBe(true);
    expect(ChatMessageSchema.parse(message)).toEqual(message);
    expect(message).toMatchObject({
      pageId,
      direction: 'in',
      text: 'còn hàng không?',
      attachments: [],
      sender: { type: 'customer', name: 'Lan Nguyen' },
    });
    const [event] = await eventsOf('message.received', message.id);
    expect(event!.data).toEqual(message);

    const conversation = await inTheShop((tx) => getConversation(tx, message.conversationId, [pageId]));
    expect(ChatConversationSchema.parse(conversation)).toEqual(conversation);
    expect(conversation).toMatchObject({
      pageId,
      snippet: 'còn hàng không?',
      canReply: true,
      customer: { name: 'Lan Nguyen', phone: null, customerId: null },
    });
    expect(Date.parse(conversation.replyWindowEndsAt!) - Date.parse(message.sentAt)).toBe(24 * 3_600_000);
  });

  it('are recorded once when the platform retries the webhook: one message, one event', async () => {
    const { pageId } = await linkedPage(db.app, shop.shopId);
    const mid = `m_${randomUUID()}`;
    const first = await inbound(pageId, 'psid-retry', 'hello', { mid });
    const [again, concurrent] = await Promise.all([
      inbound(pageId, 'psid-retry', 'hello', { mid }),
      inbound(pageId, 'psid-retry', 'hello', { mid }),
    ]);
    expect([again.created, concurrent.created]).toEqual([false, false]);
    expect(again.message).toEqual(first.message);
    expect(await db.admin`select id from chat_messages where platform_message_id = ${mid}`).toHaveLength(1);
    expect(await eventsOf('message.received', first.message.id)).toHaveLength(1);
  });

  it("link the shop's customer whose phone matches, in any accepted form", async () => {
    const { pageId } = await linkedPage(db.app, shop.shopId);
    const customer = await inTheShop((tx) => addCustomer(tx, shop.shopId, { name: 'Mai', phone: '0912 345 678' }));
    const { message } = await inbound(pageId, 'psid-mai', 'chào shop', { name: 'Mai Tran', phone: '+84912345678' });
    const linked = await inTheShop((tx) => getConversation(tx, message.conversationId, [pageId]));
    expect(linked.customer).toMatchObject({ name: 'Mai Tran', phone: '+84912345678', customerId: customer.id });
    // A later message without a profile keeps the link; a phone nobody holds, or no number at all, links nobody.
    await inbound(pageId, 'psid-mai', 'còn không');
    expect((await inTheShop((tx) => getConversation(tx, message.conversationId, [pageId]))).customer.customerId).toBe(customer.id);
    const { message: stranger } = await inbound(pageId, 'psid-x', 'hi', { phone: 'not a phone' });
    expect((await inTheShop((tx) => getConversation(tx, stranger.conversationId, [pageId]))).customer).toMatchObject({
      phone: null,
      customerId: null,
    });
  });
});

describe('outbound messages', () => {
  it('store the page’s echoed message once, keep the customer’s window, and write message.sent', async () => {
    const { pageId } = await linkedPage(db.app, shop.shopId);
    const { message: received } = await inbound(pageId, 'psid-out', 'size M?', { sentAt: new Date(Date.now() - 3_600_000) });
    const before = await inTheShop((tx) => getConversation(tx, received.conversationId, [pageId]));
    const echo = () =>
      inTheShop((tx) =>
        recordWebhookMessage(tx, shop.shopId, {
          direction: 'out',
          pageId,
          customer: { platformCustomerId: 'psid-out' },
          platformMessageId: 'm_out_1',
          text: null,
          attachments: [{ type: 'image', url: 'https://cdn.example/m.png' }],
          sentAt: new Date(),
        }),
      );
    const { message, created } = await echo();
    expect(created).toBe(true);
    expect(message).toMatchObject({
      conversationId: received.conversationId,
      direction: 'out',
      sender: { type: 'page', name: null, isIntegration: false },
      attachments: [{ type: 'image' }],
    });
    expect((await echo()).created).toBe(false);
    expect(await eventsOf('message.sent', message.id)).toHaveLength(1);
    const after = await inTheShop((tx) => getConversation(tx, received.conversationId, [pageId]));
    expect(after).toMatchObject({ snippet: '[image]', replyWindowEndsAt: before.replyWindowEndsAt });
    expect(after.lastMessageAt > before.lastMessageAt).toBe(true);
  });
});

describe('a message delivered again', () => {
  it('is stored once and leaves its conversation as the first delivery left it', async () => {
    const { pageId } = await linkedPage(db.app, shop.shopId);
    const first = await inbound(pageId, 'psid-again', 'còn size M không', { mid: 'm_again', sentAt: new Date(Date.now() - 60_000) });
    const before = await inTheShop((tx) => getConversation(tx, first.message.conversationId, [pageId]));
    const again = await inbound(pageId, 'psid-again', 'còn size M không', { mid: 'm_again', sentAt: new Date() });
    expect(again).toEqual({ message: first.message, created: false });
    expect(await inTheShop((tx) => getConversation(tx, first.message.conversationId, [pageId]))).toEqual(before);
    expect(await eventsOf('message.received', first.message.id)).toHaveLength(1);
  });
});

describe('the echo of a send', () => {
  const echoOf = (platformPageId: string, psid: string, mid: string): InboundItem => ({
    kind: 'echo',
    platformPageId,
    customer: { platformCustomerId: psid },
    platformMessageId: mid,
    text: 'Dạ còn ạ',
    attachments: [],
    sentAt: new Date(),
  });
  const sendRecorded = (tx: Tx, pageId: string, psid: string, mid: string) =>
    recordWebhookMessage(tx, shop.shopId, {
      direction: 'out',
      pageId,
      customer: { platformCustomerId: psid },
      platformMessageId: mid,
      text: 'Dạ còn ạ',
      attachments: [],
      sentAt: new Date(),
    });
  const storedState = async (conversationId: string) => ({
    messages: await db.admin`select id from chat_messages where conversation_id = ${conversationId}`,
    events:
      await db.admin`select e.id from events e join chat_messages m on m.id = e.resource_id where m.conversation_id = ${conversationId}`,
    conversation: (await db.admin`select last_message_at, snippet_sent_at from chat_conversations where id = ${conversationId}`)[0],
    customer: (
      await db.admin`select k.updated_at from chat_customers k join chat_conversations c on c.chat_customer_id = k.id
      where c.id = ${conversationId}`
    )[0],
  });

  it('writes nothing when the send it echoes is already recorded', async () => {
    const { pageId, platformPageId } = await linkedPage(db.app, shop.shopId);
    const { message } = await inTheShop((tx) => sendRecorded(tx, pageId, 'psid-echo-1', 'm_sent_1'));
    const before = await storedState(message.conversationId);
    expect(await recordInboundWebhook(db.app, [echoOf(platformPageId, 'psid-echo-1', 'm_sent_1')])).toEqual({ recorded: 1, ignored: 0 });
    // Not the customer's row, not the conversation: the echo was answered after one read.
    expect(await storedState(message.conversationId)).toEqual(before);
    expect(before.messages).toHaveLength(1);
    expect(before.events).toHaveLength(1);
  });

  it('waits for a send still being recorded, then finds its message there', async () => {
    const { pageId, platformPageId } = await linkedPage(db.app, shop.shopId);
    const { message } = await inTheShop((tx) => sendRecorded(tx, pageId, 'psid-echo-2', 'm_first'));
    let echoed: Promise<unknown> | undefined;
    let echoEnded = false;
    await inTheShop(async (tx) => {
      await sendRecorded(tx, pageId, 'psid-echo-2', 'm_racing');
      // The echo comes while the send's transaction is open: the message is not visible to it yet.
      echoed = recordInboundWebhook(db.app, [echoOf(platformPageId, 'psid-echo-2', 'm_racing')]).finally(() => (echoEnded = true));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(echoEnded).toBe(false);
    });
    expect(await echoed).toEqual({ recorded: 1, ignored: 0 });
    const after = await storedState(message.conversationId);
    expect(after.messages).toHaveLength(2);
    expect(after.events).toHaveLength(2);
  });
});

describe('reading conversations and messages', () => {
  it('lists conversations newest last message first, per page, page by page; messages newest first', async () => {
    const reader = await createShopFixture(db.app);
    const [a, b] = [await linkedPage(db.app, reader.shopId), await linkedPage(db.app, reader.shopId)];
    const write = (pageId: string, psid: string, text: string) =>
      withShop(db.app, reader.shopId, (tx) =>
        recordWebhookMessage(tx, reader.shopId, {
          direction: 'in',
          pageId,
          customer: { platformCustomerId: psid },
          platformMessageId: `m_${randomUUID()}`,
          text,
          attachments: [],
          sentAt: new Date(),
        }),
      );
    const first = await write(a.pageId, 'p1', 'one');
    await write(a.pageId, 'p2', 'two');
    await write(b.pageId, 'p3', 'three');
    await write(a.pageId, 'p1', 'four');
    const list = (query: { limit: number; cursor?: string; pageId?: string; updatedSince?: Date }, pageIds = [a.pageId, b.pageId]) =>
      withShop(db.app, reader.shopId, (tx) => listConversations(tx, query, pageIds, cursorBinding(reader.shopId, 'conversations'), 0));

    const page1 = await list({ limit: 2 });
    expect(page1.data.map((conversation) => conversation.snippet)).toEqual(['four', 'three']);
    const page2 = await list({ limit: 2, cursor: page1.nextCursor! });
    expect(page2.data.map((conversation) => conversation.snippet)).toEqual(['two']);
    expect(page2.nextCursor).toBeNull();
    expect((await list({ limit: 10, pageId: b.pageId })).data.map((conversation) => conversation.snippet)).toEqual(['three']);
    expect((await list({ limit: 10, pageId: 'not-a-page' })).data).toEqual([]);
    // A page outside the key's list does not exist for it.
    expect((await list({ limit: 10 }, [b.pageId])).data).toHaveLength(1);
    // updatedSince on lastMessageAt, older than the safety delay only.
    await db.admin`update chat_conversations set last_message_at = now() - interval '1 hour' where page_id = ${b.pageId}`;
    expect(
      (await list({ limit: 10, updatedSince: new Date(Date.now() - 2 * 3_600_000) })).data.map((conversation) => conversation.snippet),
    ).toEqual(['three']);
    // Another shop sees none of it.
    expect(
      (
        await withShop(db.app, shop.shopId, (tx) =>
          listConversations(tx, { limit: 10 }, [a.pageId, b.pageId], cursorBinding(shop.shopId, 'conversations'), 0),
        )
      ).data,
    ).toEqual([]);

    const messages = (cursor?: string) =>
      withShop(db.app, reader.shopId, (tx) =>
        listMessages(tx, first.message.conversationId, { limit: 1, cursor }, [a.pageId], cursorBinding(reader.shopId, 'messages')),
      );
    const newest = await messages();
    expect(newest.data.map((message) => message.text)).toEqual(['four']);
    const older = await messages(newest.nextCursor!);
    expect(older.data.map((message) => message.text)).toEqual(['one']);
    expect(older.nextCursor).toBeNull();
  });
});

describe('comments', () => {
  it('apply every feed verb in any arrival order: edit before add, hide, unhide, remove', async () => {
    const { pageId } = await linkedPage(db.app, shop.shopId);
    let second = Math.floor(Date.now() / 1000) - 50;
    const change = (
      verb: 'add' | 'edited' | 'remove' | 'hide' | 'unhide',
      text: string | null,
      changedAt = new Date((second += 1) * 1000),
    ) =>
      inTheShop((tx) =>
        recordCommentChange(tx, shop.shopId, pageId, {
          verb,
          platformCommentId: 'post1_c1',
          postId: 'post1',
          parentId: 'post1',
          author: { platformCustomerId: 'psid-commenter', name: 'Hoa' },
          text,
          createdAt: new Date(Date.now() - 60_000),
          changedAt,
        }),
      );
    const edited = await change('edited', 'giá bao nhiêu ạ?');
    expect(ChatCommentSchema.parse(edited)).toEqual(edited);
    expect(await change('add', 'giá bao nhiêu?')).toMatchObject({
      id: edited.id,
      text: 'giá bao nhiêu ạ?',
      isHidden: false,
      canReplyPrivately: true,
    });
    expect(await change('hide', 'giá bao nhiêu ạ?')).toMatchObject({ isHidden: true });
    expect(await change('hide', 'giá bao nhiêu ạ?')).toMatchObject({ isHidden: true });
    expect(await change('unhide', 'giá bao nhiêu ạ?')).toMatchObject({ isHidden: false });
    // A hide reported late, older than that unhide, changes nothing.
    expect(await change('hide', 'giá bao nhiêu ạ?', new Date((second - 2) * 1000))).toMatchObject({ isHidden: false });
    const removed = await change('remove', null);
    expect(removed).toMatchObject({
      text: 'giá bao nhiêu ạ?',
      canReplyPrivately: false,
      removedAt: expect.any(String),
      author: { name: 'Hoa' },
    });
    expect(await db.admin`select id from chat_comments where platform_comment_id = 'post1_c1' and page_id = ${pageId}`).toHaveLength(1);
  });
});

describe('row-level security of the chat tables', () => {
  it('shows none of their rows without a shop, and none of another shop’s', async () => {
    const { pageId } = await linkedPage(db.app, shop.shopId);
    await inbound(pageId, 'psid-rls', 'private');
    const other = await createShopFixture(db.app);
    for (const table of ['chat_page_links', 'chat_customers', 'chat_conversations', 'chat_messages', 'chat_comments']) {
      const [owner] = await db.admin.unsafe<{ count: number }[]>(`select count(*)::int as count from ${table}`);
      expect(owner!.count, table).toBeGreaterThan(0);
      const [bare] = await db.app.unsafe<{ count: number }[]>(`select count(*)::int as count from ${table}`);
      expect(bare!.count, table).toBe(0);
      const [foreign] = await withShop(db.app, other.shopId, (tx) =>
        tx.unsafe<{ count: number }[]>(`select count(*)::int as count from ${table}`),
      );
      expect(foreign!.count, table).toBe(0);
    }
  });
});
