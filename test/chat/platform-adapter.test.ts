import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ChatPlatformError, problemForPlatformError, type ChatPlatformErrorKind } from '../../adapters/chat-platform/platform-errors.js';
import type { ChatPlatformAdapter } from '../../adapters/chat-platform/platform-adapter.js';
import { testChatAdapter } from './chat-fixtures.js';
import { startChatPlatform, type RunningChatPlatform } from '../../simulators/chat/index.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

let simulator: RunningChatPlatform;
let adapter: ChatPlatformAdapter;

beforeAll(async () => {
  simulator = await startChatPlatform();
  adapter = testChatAdapter(simulator.url, 500);
});
afterAll(async () => {
  await simulator?.close();
});
beforeEach(() => {
  simulator.platform.faults.clear();
});

/** A page with a customer who has just written to it (the window is open). */
function pageWithCustomer(options: { sendCapPerMinute?: number; customerWrites?: boolean } = {}) {
  const { platform } = simulator;
  const { page, accessToken } = platform.createPage({ name: 'Shop page', sendCapPerMinute: options.sendCapPerMinute });
  const customer = platform.createCustomer(page.id, { name: 'Lan Nguyen', phone: '0901234567' });
  if (options.customerWrites ?? true) platform.customerWrites(customer.psid, { text: 'còn hàng không?' });
  return { pageId: page.id, token: accessToken, psid: customer.psid };
}

function commentOn(pageId: string, psid: string, at?: Date) {
  const post = simulator.platform.createPost(pageId, { message: 'New arrivals' });
  return simulator.platform.customerComments(post.id, { psid, message: 'giá bao nhiêu?', at }).comment.id;
}

/** The error a call failed with, checked to be the adapter's. */
async function failure(call: Promise<unknown>): Promise<ChatPlatformError> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ChatPlatformError);
  return error as ChatPlatformError;
}

async function expectKind(call: Promise<unknown>, kind: ChatPlatformErrorKind, details: object = {}) {
  const error = await failure(call);
  expect({ kind: error.kind, ...error.details }).toMatchObject({ kind, ...details });
  return error;
}

describe('chat platform adapter: sending', () => {
  it('sends text and an attachment inside the window; the platform has them', async () => {
    const { pageId, token, psid } = pageWithCustomer();
    const sent = await adapter.sendMessage(token, psid, { text: 'Dạ còn ạ' });
    expect(sent).toEqual({ platformMessageId: expect.stringMatching(/^m_/), recipientId: psid });
    await adapter.sendMessage(token, psid, { attachment: { type: 'image', url: 'https://cdn.example/shirt.png' } });
    expect(simulator.platform.sentMessages(pageId).map((message) => [message.mid, message.text, message.attachments])).toEqual([
      [sent.platformMessageId, 'Dạ còn ạ', []],
      [expect.any(String), undefined, [{ type: 'image', url: 'https://cdn.example/shirt.png' }]],
    ]);
  });

  it('classifies a closed window (10 / 2018278) as window-closed, 422 messaging-window-closed; a person may still answer for 7 days', async () => {
    const { token, psid } = pageWithCustomer();
    simulator.platform.clock.advance(25 * HOUR_MS);
    try {
      const error = await expectKind(adapter.sendMessage(token, psid, { text: 'Còn đó không ạ?' }), 'window-closed', {
        httpStatus: 400,
        code: 10,
        subcode: 2018278,
      });
      expect(problemForPlatformError(error)).toMatchObject({ code: 'messaging-window-closed', status: 422 });
      expect((await adapter.sendMessage(token, psid, { text: 'Nhân viên trả lời' }, { humanAgent: true })).recipientId).toBe(psid);
    } finally {
      simulator.platform.clock.set(new Date());
    }
  });

  it('classifies a disconnected page’s token (190) as page-not-connected, 422 page-not-connected', async () => {
    const { pageId, token, psid } = pageWithCustomer();
    simulator.platform.disconnectPage(pageId);
    const error = await expectKind(adapter.sendMessage(token, psid, { text: 'hi' }), 'page-not-connected', { code: 190 });
    expect(problemForPlatformError(error)).toMatchObject({ code: 'page-not-connected', status: 422 });
    await expectKind(adapter.setCommentHidden(token, 'any-comment', true), 'page-not-connected');
  });

  it('classifies an unavailable customer (551) and an unknown one (100 / 2018001) as not-replyable, 422 conversation-not-replyable', async () => {
    const { token, psid } = pageWithCustomer();
    simulator.platform.setCustomerAvailable(psid, false);
    const error = await expectKind(adapter.sendMessage(token, psid, { text: 'hi' }), 'not-replyable', { code: 551 });
    expect(problemForPlatformError(error)).toMatchObject({ code: 'conversation-not-replyable', status: 422 });
    await expectKind(adapter.sendMessage(token, '999', { text: 'hi' }), 'not-replyable', { code: 100, subcode: 2018001 });
  });

  it('classifies throttling, the per-page cap, platform faults, time-outs and network errors as unavailable (503 channel-unavailable)', async () => {
    const { pageId, token, psid } = pageWithCustomer({ sendCapPerMinute: 1 });
    simulator.platform.faults.inject({ kind: 'send', effect: 'unavailable' });
    const outage = await expectKind(adapter.sendMessage(token, psid, { text: 'a' }), 'unavailable', { httpStatus: 503, code: 2 });
    expect(problemForPlatformError(outage)).toMatchObject({ code: 'channel-unavailable', status: 503 });
    simulator.platform.faults.inject({ kind: 'send', effect: 'throttled' });
    await expectKind(adapter.sendMessage(token, psid, { text: 'b' }), 'unavailable', { code: 613 });
    await adapter.sendMessage(token, psid, { text: 'c' });
    await expectKind(adapter.sendMessage(token, psid, { text: 'd' }), 'unavailable', { code: 32 });
    expect(simulator.platform.sentMessages(pageId).map((message) => message.text)).toEqual(['c']);

    simulator.platform.setSendCap(pageId, 100);
    simulator.platform.faults.inject({ kind: 'send', effect: 'timeout', delayMs: 5_000 });
    const started = Date.now();
    await expectKind(adapter.sendMessage(token, psid, { text: 'slow' }), 'unavailable', { outcomeUnknown: true });
    // Cut off by the adapter's 500 ms time-out, not by the platform's 5 s answer.
    expect(Date.now() - started).toBeLessThan(4_000);
    // The platform did the work but the answer was lost: the caller is told the outcome is unknown.
    simulator.platform.faults.inject({ kind: 'send', effect: 'drop-after-accept' });
    await expectKind(adapter.sendMessage(token, psid, { text: 'did it go?' }), 'unavailable', { outcomeUnknown: true });
    expect(simulator.platform.sentMessages(pageId).map((message) => message.text)).toEqual(['c', 'did it go?']);

    const closedPort = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const unreachable = testChatAdapter(`http://127.0.0.1:${closedPort}`, 500);
    await expectKind(unreachable.sendMessage(token, psid, { text: 'x' }), 'unavailable');
  });

  it('classifies any other refusal (100) as invalid, 400 validation-failed', async () => {
    const { token, psid } = pageWithCustomer();
    const error = await expectKind(adapter.sendMessage(token, psid, { text: 'x'.repeat(2001) }), 'invalid', { code: 100 });
    expect(problemForPlatformError(error)).toMatchObject({ code: 'validation-failed', status: 400 });
  });
});

describe('chat platform adapter: comments and profiles', () => {
  it('replies privately once; a second reply, or one after 7 days, is not-replyable', async () => {
    const { pageId, token, psid } = pageWithCustomer({ customerWrites: false });
    const commentId = commentOn(pageId, psid);
    const reply = await adapter.replyPrivately(token, commentId, 'Em nhắn riêng ạ');
    expect(reply.recipientId).toBe(psid);
    expect(simulator.platform.store.comment(commentId).privatelyRepliedAt).toBeDefined();
    await expectKind(adapter.replyPrivately(token, commentId, 'again'), 'not-replyable', { code: 10900 });
    const oldCommentId = commentOn(pageId, psid, new Date(Date.now() - 8 * DAY_MS));
    await expectKind(adapter.replyPrivately(token, oldCommentId, 'late'), 'not-replyable', { code: 10903 });
  });

  it('hides and shows a comment on the platform', async () => {
    const { pageId, token, psid } = pageWithCustomer({ customerWrites: false });
    const commentId = commentOn(pageId, psid);
    await adapter.setCommentHidden(token, commentId, true);
    expect(simulator.platform.store.comment(commentId).hidden).toBe(true);
    await adapter.setCommentHidden(token, commentId, false);
    expect(simulator.platform.store.comment(commentId).hidden).toBe(false);
    simulator.platform.faults.inject({ kind: 'moderate', effect: 'unavailable' });
    await expectKind(adapter.setCommentHidden(token, commentId, true), 'unavailable');
    expect(simulator.platform.store.comment(commentId).hidden).toBe(false);
    await expectKind(adapter.setCommentHidden(token, `${commentId}_gone`, true), 'not-replyable', { code: 100, subcode: 33 });
  });

  it("reads a customer's profile, with the phone where the platform gives one", async () => {
    const { token, psid } = pageWithCustomer({ customerWrites: false });
    expect(await adapter.customerProfile(token, psid)).toEqual({ name: 'Lan Nguyen', phone: '0901234567' });
  });
});

describe('chat platform adapter: whose token', () => {
  it("names the token's page (GET /me); a token of no page is page-not-connected, an outage unavailable", async () => {
    const { pageId, token } = pageWithCustomer({ customerWrites: false });
    expect(await adapter.tokenPage(token)).toEqual({ id: pageId, name: 'Shop page' });
    await expectKind(adapter.tokenPage('EAAmade-up-token'), 'page-not-connected', { code: 190 });
    simulator.platform.faults.inject({ kind: 'read', effect: 'unavailable' });
    await expectKind(adapter.tokenPage(token), 'unavailable', { httpStatus: 503 });
  });
});
