import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { freshWindow } from '../support/rate-window.js';
import { chatKey, simulatorPage } from './chat-fixtures.js';

const { db, shop, chat, request } = useSuite({ api: true, shop: true, chat: true });

type Page = Awaited<ReturnType<typeof simulatorPage>>;
let page: Page;
let otherPage: Page;
let key: string;

beforeAll(async () => {
  page = await simulatorPage(db.app, shop.shopId, chat, ['Lan Nguyen']);
  otherPage = await simulatorPage(db.app, shop.shopId, chat, ['Hoa Le']);
  key = await chatKey(db.app, shop, [page.pageId]);
});

interface Comment {
  id: string;
  pageId: string;
  postId: string;
  text: string;
  isHidden: boolean;
  canReplyPrivately: boolean;
  privatelyRepliedAt: string | null;
}

const json = async <T = Record<string, unknown>>(response: Response, status = 200) => {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
};

/** A customer of `on` comments on a new post; returns the comment as the API shows it once the webhook is recorded. */
async function commented(on: Page, message: string, readWith = key): Promise<Comment & { platformCommentId: string }> {
  const post = chat.platform.createPost(on.platformPageId, { message: 'New arrivals' });
  const { comment } = chat.platform.customerComments(post.id, { psid: on.customers[0]!.psid, message });
  await chat.platform.webhooks.settled();
  const list = await json<{ data: Comment[] }>(await request('GET', `/comments?postId=${post.id}`, { key: readWith }));
  return { ...list.data[0]!, platformCommentId: comment.id };
}

describe('comments', () => {
  it("are listed latest change first for the key's pages, found one by one, and 404 on another page", async () => {
    const first = await commented(page, 'giá bao nhiêu?');
    const second = await commented(page, 'còn màu đỏ không?');
    expect(first).toMatchObject({ pageId: page.pageId, text: 'giá bao nhiêu?', isHidden: false, canReplyPrivately: true });
    const list = await json<{ data: Comment[] }>(await request('GET', '/comments', { key }));
    expect(list.data.map((comment) => comment.id).slice(0, 2)).toEqual([second.id, first.id]);
    expect(await json(await request('GET', `/comments/${first.id}`, { key }))).toMatchObject({ text: 'giá bao nhiêu?' });

    const foreign = await commented(otherPage, 'ship không?', await chatKey(db.app, shop, [otherPage.pageId]));
    expect(list.data.map((comment) => comment.id)).not.toContain(foreign.id);
    await expectProblem(await request('GET', `/comments/${foreign.id}`, { key }), 404, 'not-found');
    await expectProblem(await request('POST', `/comments/${foreign.id}/hide`, { key }), 404, 'not-found');
    await expectProblem(await request('POST', `/comments/${foreign.id}/private-reply`, { key, body: { text: 'hi' } }), 404, 'not-found');
    expect(chat.platform.store.comment(foreign.platformCommentId)).toMatchObject({ hidden: false });
  });

  it('take one private reply: the second attempt is refused, and the reply lands in the author’s conversation', async () => {
    const comment = await commented(page, 'inbox giá nhé');
    const reply = (text: string) => request('POST', `/comments/${comment.id}/private-reply`, { key, body: { text } });
    const sent = await json<{ conversationId: string; direction: string }>(await reply('Dạ shop inbox ạ'), 201);
    expect(sent).toMatchObject({ conversationId: page.customers[0]!.conversationId, direction: 'out' });
    expect(chat.platform.store.comment(comment.platformCommentId).privatelyRepliedAt).toBeDefined();
    await expectProblem(await reply('again'), 422, 'conversation-not-replyable');
    expect(
      chat.platform.sentMessages(page.platformPageId).filter((message) => message.privateReplyTo === comment.platformCommentId),
    ).toHaveLength(1);
    expect(await json(await request('GET', `/comments/${comment.id}`, { key }))).toMatchObject({ canReplyPrivately: false });
  });

  it('refuses a private reply the platform judges too late (7 days) as conversation-not-replyable', async () => {
    const comment = await commented(page, 'old comment');
    chat.platform.clock.advance(8 * 24 * 3_600_000);
    try {
      await expectProblem(
        await request('POST', `/comments/${comment.id}/private-reply`, { key, body: { text: 'late' } }),
        422,
        'conversation-not-replyable',
      );
    } finally {
      chat.platform.clock.set(new Date());
    }
  });

  it('are hidden and shown on the platform', async () => {
    const comment = await commented(page, 'spam spam');
    expect(await json(await request('POST', `/comments/${comment.id}/hide`, { key }))).toMatchObject({ isHidden: true });
    expect(chat.platform.store.comment(comment.platformCommentId).hidden).toBe(true);
    expect(await json(await request('POST', `/comments/${comment.id}/show`, { key }))).toMatchObject({ isHidden: false });
    expect(chat.platform.store.comment(comment.platformCommentId).hidden).toBe(false);
    // The platform's feed reports both; recording them again changes nothing.
    await chat.platform.webhooks.settled();
    expect(await json(await request('GET', `/comments/${comment.id}`, { key }))).toMatchObject({ isHidden: false });

    chat.platform.faults.inject({ kind: 'moderate', effect: 'unavailable', count: 1 });
    await expectProblem(await request('POST', `/comments/${comment.id}/hide`, { key }), 503, 'channel-unavailable');
    expect(chat.platform.store.comment(comment.platformCommentId).hidden).toBe(false);
    await expectProblem(await request('POST', `/comments/${randomUUID()}/show`, { key }), 404, 'not-found');
  });

  it('refuses hiding a comment its author removed (409 conflict)', async () => {
    const comment = await commented(page, 'oops');
    chat.platform.customerRemovesComment(comment.platformCommentId);
    await chat.platform.webhooks.settled();
    await expectProblem(await request('POST', `/comments/${comment.id}/hide`, { key }), 409, 'conflict');
    await expectProblem(
      await request('POST', `/comments/${comment.id}/private-reply`, { key, body: { text: 'hi' } }),
      422,
      'conversation-not-replyable',
    );
  });
});

describe('when the platform fails', () => {
  it('answers a private reply and a show with 503 channel-unavailable, and changes nothing until it answers', async () => {
    const comment = await commented(page, 'inbox mình với');
    const reply = () => request('POST', `/comments/${comment.id}/private-reply`, { key, body: { text: 'Dạ shop inbox ạ' } });
    const repliesOnPlatform = () =>
      chat.platform.sentMessages(page.platformPageId).filter((message) => message.privateReplyTo === comment.platformCommentId);
    for (const effect of ['unavailable', 'throttled'] as const) {
      chat.platform.faults.inject({ kind: 'send', effect, count: 1 });
      await expectProblem(await reply(), 503, 'channel-unavailable');
    }
    expect(repliesOnPlatform()).toHaveLength(0);
    expect(await json(await request('GET', `/comments/${comment.id}`, { key }))).toMatchObject({
      canReplyPrivately: true,
      privatelyRepliedAt: null,
    });
    expect((await reply()).status).toBe(201);
    expect(repliesOnPlatform()).toHaveLength(1);

    expect(await json(await request('POST', `/comments/${comment.id}/hide`, { key }))).toMatchObject({ isHidden: true });
    for (const effect of ['unavailable', 'throttled'] as const) {
      chat.platform.faults.inject({ kind: 'moderate', effect, count: 1 });
      await expectProblem(await request('POST', `/comments/${comment.id}/show`, { key }), 503, 'channel-unavailable');
    }
    expect(chat.platform.store.comment(comment.platformCommentId).hidden).toBe(true);
    expect(await json(await request('GET', `/comments/${comment.id}`, { key }))).toMatchObject({ isHidden: true });
    expect(await json(await request('POST', `/comments/${comment.id}/show`, { key }))).toMatchObject({ isHidden: false });
    expect(chat.platform.store.comment(comment.platformCommentId).hidden).toBe(false);
  });
});

describe('a private reply', () => {
  it('counts in the message counter (60 a minute per key), not the general one', async () => {
    const counted = await chatKey(db.app, shop, [page.pageId]);
    await freshWindow(20);
    const comment = await commented(page, 'còn size M không?', counted);
    const remaining = (response: Response) => ({
      limit: response.headers.get('x-ratelimit-limit'),
      remaining: response.headers.get('x-ratelimit-remaining'),
    });
    const before = remaining(await request('GET', '/comments?limit=1', { key: counted }));
    expect(before).toEqual({ limit: '600', remaining: '598' });
    const reply = (text: string) => request('POST', `/comments/${comment.id}/private-reply`, { key: counted, body: { text } });
    const sent = await reply('Dạ còn ạ');
    expect(sent.status).toBe(201);
    expect(remaining(sent)).toEqual({ limit: '60', remaining: '59' });
    // A refused second reply counts there too.
    const refused = await reply('again');
    expect(refused.status).toBe(422);
    expect(remaining(refused)).toEqual({ limit: '60', remaining: '58' });
    expect(remaining(await request('GET', '/comments?limit=1', { key: counted }))).toEqual({ limit: '600', remaining: '597' });
  });
});
