import { createHmac, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startChatPlatform, type RunningChatPlatform, type WebhookDelivery } from '../../simulators/chat/index.js';
import type { WebhookReceiver } from '../../simulators/webhook-receiver.js';
import { startTestReceiver } from '../support/receiver.js';
import { testEnv } from '../support/environment.js';
import { chatClient, expectGraphError, type GraphErrorBody, type ListAnswer } from './chat-platform-client.js';

const APP_SECRET = 'test-app-secret';
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface PageView {
  id: string;
  accessTokens: string[];
}

let receiver: WebhookReceiver;
let inbox: string;
let simulator: RunningChatPlatform;
let client: ReturnType<typeof chatClient>;

beforeAll(async () => {
  receiver = await startTestReceiver();
});
afterAll(async () => {
  await receiver?.close();
});
beforeEach(async () => {
  inbox = `chat-${randomUUID()}`;
  simulator = await startChatPlatform({
    appSecret: APP_SECRET,
    callbackUrl: receiver.url(inbox),
    callbackCaPem: readFileSync(testEnv('WEBHOOK_EXTRA_CA_FILE'), 'utf8'),
    webhookRetryDelaysMs: [20, 20, 20],
  });
  client = chatClient(simulator);
});
afterEach(async () => {
  await simulator?.close();
});

/** A page with one token and one customer who has just written to it (the window is open). */
async function pageWithCustomer(options: { sendCapPerMinute?: number; customerWrites?: boolean } = {}) {
  const page = (await client.control<PageView>('POST', '/pages', { name: 'Shop page', sendCapPerMinute: options.sendCapPerMinute })).body;
  const customer = (
    await client.control<{ psid: string }>('POST', `/pages/${page.id}/customers`, { name: 'Lan Nguyen', phone: '+84901234567' })
  ).body;
  if (options.customerWrites ?? true)
    expect((await client.control('POST', `/customers/${customer.psid}/messages`, { text: 'còn hàng không?' })).status).toBe(201);
  return { pageId: page.id, token: page.accessTokens[0]!, psid: customer.psid };
}

async function commentOnNewPost(pageId: string, psid: string, at?: Date) {
  const post = (await client.control<{ id: string }>('POST', `/pages/${pageId}/posts`, { message: 'New arrivals' })).body;
  const created = await client.control<{ comment: { id: string } }>('POST', `/posts/${post.id}/comments`, {
    psid,
    message: 'giá bao nhiêu?',
    at: at?.toISOString(),
  });
  expect(created.status).toBe(201);
  return created.body.comment.id;
}

function parsedBodies(requests: { body: string }[]) {
  return requests.map(
    (received) =>
      JSON.parse(received.body) as {
        entry: { changes?: { value: Record<string, unknown> }[] }[];
      },
  );
}

describe('chat platform simulator: the Send API', () => {
  it('sends within 24 hours of the customer’s last message and refuses after (code 10 / 2018278)', async () => {
    const { token, psid } = await pageWithCustomer();
    const sent = await client.sendText(token, psid, 'Dạ còn ạ');
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ recipient_id: psid, message_id: expect.stringMatching(/^m_/) });

    await client.control('POST', '/clock', { advanceMs: 25 * HOUR_MS });
    const late = await client.sendText(token, psid, 'Còn đó không ạ?');
    expect(late.status).toBe(400);
    expectGraphError(late, 10, 2018278);
    // A person may still answer for 7 days with the HUMAN_AGENT tag.
    expect((await client.sendText(token, psid, 'Nhân viên trả lời', { messaging_type: 'MESSAGE_TAG', tag: 'HUMAN_AGENT' })).status).toBe(
      200,
    );

    await client.control('POST', `/customers/${psid}/messages`, { text: 'vẫn còn' });
    expect((await client.sendText(token, psid, 'Dạ vâng')).status).toBe(200);
  });

  it('refuses a customer whose last message was backdated 25 hours', async () => {
    const { token, psid } = await pageWithCustomer({ customerWrites: false });
    await client.control('POST', `/customers/${psid}/messages`, { text: 'hello', at: new Date(Date.now() - 25 * HOUR_MS).toISOString() });
    expectGraphError(await client.sendText(token, psid, 'hi'), 10, 2018278);
    expect((await client.control<unknown[]>('GET', '/sent')).body).toEqual([]);
  });

  it('caps sends per page per minute, shared by every token of the page (code 32)', async () => {
    const { pageId, token, psid } = await pageWithCustomer({ sendCapPerMinute: 3 });
    const secondToken = (await client.control<{ accessToken: string }>('POST', `/pages/${pageId}/tokens`)).body.accessToken;
    expect(secondToken).not.toBe(token);
    expect((await client.sendText(token, psid, '1')).status).toBe(200);
    expect((await client.sendText(secondToken, psid, '2')).status).toBe(200);
    expect((await client.sendText(token, psid, '3')).status).toBe(200);
    const capped = await client.sendText(secondToken, psid, '4');
    expectGraphError(capped, 32);
    expect(capped.body.error.is_transient).toBe(true);
    expectGraphError(await client.sendText(token, psid, '5'), 32);

    await client.control('POST', '/clock', { advanceMs: 61_000 });
    expect((await client.sendText(secondToken, psid, '6')).status).toBe(200);
    expect((await client.control<unknown[]>('GET', `/sent?pageId=${pageId}`)).body).toHaveLength(4);
  });

  it('refuses every token of a disconnected page (190); reconnecting gives a new token', async () => {
    const { pageId, token, psid } = await pageWithCustomer();
    const secondToken = (await client.control<{ accessToken: string }>('POST', `/pages/${pageId}/tokens`)).body.accessToken;
    await client.control('POST', `/pages/${pageId}/disconnect`);
    expectGraphError(await client.sendText(token, psid, 'hi'), 190, 458);
    expectGraphError(await client.sendText(secondToken, psid, 'hi'), 190, 458);
    expectGraphError(await client.graph('GET', `/${pageId}/conversations`, { token }), 190, 458);

    const reconnected = (await client.control<{ accessToken: string }>('POST', `/pages/${pageId}/reconnect`)).body;
    expect((await client.sendText(reconnected.accessToken, psid, 'hi again')).status).toBe(200);
    expectGraphError(await client.sendText(token, psid, 'hi'), 190, 458);
    expectGraphError(await client.sendText('EAAnot-a-token', psid, 'hi'), 190);
    expectGraphError(await client.graph('POST', '/me/messages', { json: {} }), 104);
  });

  it('answers bad parameters with 100, an unknown recipient with 2018001, an unavailable one with 551', async () => {
    const { token, psid } = await pageWithCustomer();
    const noType = await client.graph('POST', '/me/messages', { token, json: { recipient: { id: psid }, message: { text: 'x' } } });
    expectGraphError(noType, 100);
    const both = await client.sendText(token, psid, 'x', {
      message: { text: 'x', attachment: { type: 'image', payload: { url: 'https://cdn.example/a.png' } } },
    });
    expectGraphError(both, 100);
    expectGraphError(await client.sendText(token, '999', 'x'), 100, 2018001);
    await client.control('PATCH', `/customers/${psid}`, { available: false });
    expectGraphError(await client.sendText(token, psid, 'x'), 551, 1545041);
  });

  it('takes the token as access_token and form-encoded parameters, and sends attachments', async () => {
    const { token, psid } = await pageWithCustomer();
    const form = {
      access_token: token,
      recipient: JSON.stringify({ id: psid }),
      messaging_type: 'RESPONSE',
      message: JSON.stringify({ attachment: { type: 'image', payload: { url: 'https://cdn.example/shirt.png' } } }),
    };
    const sent = await client.graph('POST', '/me/messages', { form });
    expect(sent.status).toBe(200);
    const [message] = (await client.control<{ attachments: unknown[] }[]>('GET', '/sent')).body;
    expect(message?.attachments).toEqual([{ type: 'image', url: 'https://cdn.example/shirt.png' }]);
  });
});

describe('chat platform simulator: comments', () => {
  it('replies privately to a comment once, and not after 7 days (10900, 10903)', async () => {
    const { pageId, token, psid } = await pageWithCustomer({ customerWrites: false });
    const commentId = await commentOnNewPost(pageId, psid);
    const reply = { recipient: { comment_id: commentId }, message: { text: 'Em nhắn riêng ạ' } };
    const first = await client.graph('POST', `/${pageId}/messages`, { token, json: reply });
    expect(first.status).toBe(200);
    expect(first.body.recipient_id).toBe(psid);
    expectGraphError(await client.graph('POST', `/${pageId}/messages`, { token, json: reply }), 10900);
    expect((await client.control<{ privatelyRepliedAt?: string }>('GET', `/comments/${commentId}`)).body.privatelyRepliedAt).toBeDefined();
    // The private reply does not open the 24-hour window: only the customer's answer does.
    expectGraphError(await client.sendText(token, psid, 'follow-up'), 10, 2018278);

    const oldCommentId = await commentOnNewPost(pageId, psid, new Date(Date.now() - 8 * DAY_MS));
    const late = await client.graph('POST', `/${pageId}/messages`, { token, json: { ...reply, recipient: { comment_id: oldCommentId } } });
    expectGraphError(late, 10903);
  });

  it('hides and shows a comment: the stored comment and the feed webhooks follow', async () => {
    const { pageId, token, psid } = await pageWithCustomer({ customerWrites: false });
    const commentId = await commentOnNewPost(pageId, psid);
    const hidden = await client.graph('POST', `/${commentId}`, { token, form: { is_hidden: 'true' } });
    expect(hidden.body).toEqual({ success: true });
    expect((await client.graph('GET', `/${commentId}`, { token })).body).toMatchObject({ id: commentId, is_hidden: true });
    expect((await client.graph('POST', `/${commentId}`, { token, json: { is_hidden: false } })).status).toBe(200);
    expect((await client.graph('GET', `/${commentId}`, { token })).body).toMatchObject({ is_hidden: false });

    // Each event is delivered on its own, so they may arrive in any order (as on the real platform).
    const changes = parsedBodies(await receiver.waitFor(inbox, 3)).map((body) => body.entry[0]?.changes?.[0]?.value);
    const byVerb = new Map(changes.map((change) => [change?.verb, change]));
    expect([...byVerb.keys()].sort()).toEqual(['add', 'hide', 'unhide']);
    expect(byVerb.get('hide')).toMatchObject({ comment_id: commentId, is_hidden: true });
    expect(byVerb.get('unhide')).toMatchObject({ comment_id: commentId, is_hidden: false });
    expect(byVerb.get('add')).toMatchObject({
      item: 'comment',
      comment_id: commentId,
      from: { id: psid, name: 'Lan Nguyen' },
      message: 'giá bao nhiêu?',
    });
    expectGraphError(await client.graph('POST', `/${commentId}_nope`, { token, form: { is_hidden: 'true' } }), 100, 33);
  });
});

describe('chat platform simulator: webhooks', () => {
  it('signs each event with X-Hub-Signature-256 under the app secret', async () => {
    const { pageId, psid } = await pageWithCustomer();
    const [delivered] = await receiver.waitFor(inbox, 1);
    const signature = delivered!.headers['x-hub-signature-256'];
    expect(signature).toBe(`sha256=${createHmac('sha256', APP_SECRET).update(delivered!.body).digest('hex')}`);
    expect(signature).not.toBe(`sha256=${createHmac('sha256', 'another-secret').update(delivered!.body).digest('hex')}`);
    expect(JSON.parse(delivered!.body)).toMatchObject({
      object: 'page',
      entry: [
        {
          id: pageId,
          messaging: [
            { sender: { id: psid }, recipient: { id: pageId }, message: { mid: expect.stringMatching(/^m_/), text: 'còn hàng không?' } },
          ],
        },
      ],
    });
  });

  it('retries a delivery the callback answered with 500', async () => {
    receiver.respondWith(inbox, [{ status: 500 }, { status: 200 }]);
    await pageWithCustomer();
    await receiver.waitFor(inbox, 2);
    await simulator.platform.webhooks.settled();
    const [delivery] = (await client.control<WebhookDelivery[]>('GET', '/webhooks')).body;
    expect(delivery?.state).toBe('delivered');
    expect(delivery?.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
    const bodies = receiver.received(inbox).map((received) => received.body);
    expect(bodies[1]).toBe(bodies[0]);
  });

  it('gives up after the configured attempts', async () => {
    receiver.respondWith(inbox, [{ status: 503 }]);
    await pageWithCustomer();
    await simulator.platform.webhooks.settled();
    expect(receiver.received(inbox)).toHaveLength(4);
    expect(simulator.platform.webhookDeliveries()[0]?.state).toBe('failed');
  });

  it('subscribes an app only when its callback echoes the challenge for the verify token', async () => {
    const callback = createServer((incoming, answer) => {
      const query = new URL(incoming.url ?? '/', 'http://callback').searchParams;
      const verified = query.get('hub.mode') === 'subscribe' && query.get('hub.verify_token') === 'let-me-in';
      answer.writeHead(verified ? 200 : 403).end(verified ? query.get('hub.challenge') : 'no');
    });
    await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
    try {
      const app = simulator.platform.defaultApp;
      const callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/hook`;
      const subscribe = (verifyToken: string) =>
        client.graph('POST', `/${app.id}/subscriptions`, {
          form: {
            access_token: `${app.id}|${APP_SECRET}`,
            object: 'page',
            callback_url: callbackUrl,
            verify_token: verifyToken,
            fields: 'messages,feed',
          },
        });
      expectGraphError(await subscribe('wrong'), 2200);
      expect(app.callbackUrl).toBe(receiver.url(inbox));
      expect((await subscribe('let-me-in')).body).toEqual({ success: true });
      expect(app.callbackUrl).toBe(callbackUrl);
    } finally {
      await new Promise((resolve) => callback.close(resolve));
    }
  });
});

describe('chat platform simulator: faults', () => {
  it('answers 503 (code 2) and throttling (613) for the next calls, sending nothing', async () => {
    const { token, psid } = await pageWithCustomer();
    await client.control('POST', '/faults', { kind: 'send', effect: 'unavailable', count: 2 });
    await client.control('POST', '/faults', { kind: 'send', effect: 'throttled' });
    const unavailable = await client.sendText(token, psid, 'a');
    expect(unavailable.status).toBe(503);
    expectGraphError(unavailable, 2);
    expect((await client.sendText(token, psid, 'b')).status).toBe(503);
    expectGraphError(await client.sendText(token, psid, 'c'), 613);
    expect((await client.control<unknown[]>('GET', '/sent')).body).toEqual([]);
    expect((await client.sendText(token, psid, 'd')).status).toBe(200);
  });

  it('times out without sending', async () => {
    const { token, psid } = await pageWithCustomer();
    await client.control('POST', '/faults', { kind: 'send', effect: 'timeout', delayMs: 10_000 });
    const body = JSON.stringify({ recipient: { id: psid }, messaging_type: 'RESPONSE', message: { text: 'slow' } });
    const attempt = request(`${simulator.url}/v21.0/me/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
      headersTimeout: 300,
    });
    await expect(attempt).rejects.toThrow(/timeout/i);
    expect(simulator.platform.sentMessages()).toEqual([]);
  });

  it('drops the answer after accepting a send: the caller gets no answer, the message is in the conversation', async () => {
    const { pageId, token, psid } = await pageWithCustomer();
    await client.control('POST', '/faults', { kind: 'send', effect: 'drop-after-accept' });
    await expect(client.sendText(token, psid, 'did it go?')).rejects.toThrow(/other side closed/);
    const [conversation] = (await client.graph<ListAnswer<{ id: string }>>('GET', `/${pageId}/conversations`, { token })).body.data;
    const messages = (
      await client.graph<ListAnswer<{ message: string; from: { id: string } }>>('GET', `/${conversation!.id}/messages`, { token })
    ).body.data;
    expect(messages[0]).toMatchObject({ message: 'did it go?', from: { id: pageId } });
  });
});

describe('chat platform simulator: reading conversations and messages', () => {
  it('lists conversations newest first and messages newest first, page by page with cursors', async () => {
    const { pageId, token, psid } = await pageWithCustomer();
    for (const name of ['Minh', 'Hoa']) {
      const other = (await client.control<{ psid: string }>('POST', `/pages/${pageId}/customers`, { name })).body;
      await client.control('POST', `/customers/${other.psid}/messages`, { text: `hi from ${name}` });
    }
    for (const text of ['two', 'three', 'four', 'five']) await client.control('POST', `/customers/${psid}/messages`, { text });

    const firstPage = (
      await client.graph<ListAnswer<{ id: string; participants: { data: { id: string }[] } }>>('GET', `/${pageId}/conversations?limit=2`, {
        token,
      })
    ).body;
    expect(firstPage.data).toHaveLength(2);
    expect(firstPage.data[0]?.participants.data[0]?.id).toBe(psid);
    expect(firstPage.paging?.next).toContain(`after=${firstPage.paging?.cursors.after}`);
    const secondPage = (
      await client.graph<ListAnswer<{ id: string }>>('GET', `/${pageId}/conversations?limit=2&after=${firstPage.paging!.cursors.after}`, {
        token,
      })
    ).body;
    expect(secondPage.data).toHaveLength(1);
    expect(secondPage.paging?.next).toBeUndefined();

    const conversationId = firstPage.data[0]!.id;
    const texts: string[] = [];
    let after: string | undefined;
    do {
      const page = (
        await client.graph<ListAnswer<{ message: string }>>('GET', `/${conversationId}/messages?limit=2${after ? `&after=${after}` : ''}`, {
          token,
        })
      ).body;
      texts.push(...page.data.map((message) => message.message));
      after = page.paging?.next ? page.paging.cursors.after : undefined;
    } while (after);
    expect(texts).toEqual(['five', 'four', 'three', 'two', 'còn hàng không?']);

    expectGraphError(await client.graph('GET', `/${conversationId}/messages?after=not-a-cursor`, { token }), 100);
    const otherPage = await pageWithCustomer();
    const foreign = await client.graph<GraphErrorBody>('GET', `/${conversationId}/messages`, { token: otherPage.token });
    expectGraphError(foreign, 100, 33);
    expect((await client.graph('GET', `/${psid}`, { token })).body).toMatchObject({
      name: 'Lan Nguyen',
      first_name: 'Lan',
      phone: '+84901234567',
    });
  });
});
