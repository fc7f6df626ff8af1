import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasValidHubSignature, parseInboundWebhook, type InboundItem } from '../../domain/chat/index.js';
import { startChatPlatform, type RunningChatPlatform } from '../../simulators/chat/index.js';

const APP_SECRET = 'inbound-test-app-secret';

interface Caught {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let callback: Server;
const caught: Caught[] = [];
let simulator: RunningChatPlatform;

beforeAll(async () => {
  // The app's callback: keeps the exact bytes, as the webhook route will have to.
  callback = createServer((incoming, answer) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      caught.push({ headers: incoming.headers, body: Buffer.concat(chunks) });
      answer.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  const callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/platform/chat/webhook`;
  simulator = await startChatPlatform({ appSecret: APP_SECRET, callbackUrl, webhookRetryDelaysMs: [] });
});
afterAll(async () => {
  await simulator?.close();
  await new Promise((resolve) => callback?.close(resolve));
});

/** Runs `act` on the platform and returns the webhook bodies it caused, once all are delivered. */
async function webhooksOf(act: () => void): Promise<Caught[]> {
  const before = caught.length;
  act();
  await simulator.platform.webhooks.settled();
  return caught.slice(before);
}

const signatureOf = (request: Caught) => request.headers['x-hub-signature-256'] as string;
const itemsOf = (requests: Caught[]) => requests.flatMap((request) => parseInboundWebhook(request.body));

describe('inbound webhook: the signature', () => {
  it('accepts the body the platform signed, byte for byte, and refuses any change, another secret or no signature', async () => {
    const { page } = simulator.platform.createPage({ name: 'Shop page' });
    const customer = simulator.platform.createCustomer(page.id, { name: 'Lan Nguyen' });
    const [request] = await webhooksOf(() => simulator.platform.customerWrites(customer.psid, { text: 'còn hàng không?' }));
    expect(hasValidHubSignature(request!.body, signatureOf(request!), APP_SECRET)).toBe(true);
    expect(hasValidHubSignature(request!.body.toString('utf8'), signatureOf(request!), APP_SECRET)).toBe(true);

    const tampered = Buffer.from(request!.body.toString('utf8').replace('còn hàng không?', 'hết hàng rồi'));
    expect(hasValidHubSignature(tampered, signatureOf(request!), APP_SECRET)).toBe(false);
    // The same JSON re-serialised is other bytes: the check is over the raw body, never a parsed one.
    expect(hasValidHubSignature(JSON.stringify(JSON.parse(request!.body.toString()), null, 1), signatureOf(request!), APP_SECRET)).toBe(
      false,
    );
    expect(hasValidHubSignature(request!.body, signatureOf(request!), 'another-secret')).toBe(false);
    expect(hasValidHubSignature(request!.body, undefined, APP_SECRET)).toBe(false);
    expect(hasValidHubSignature(request!.body, request!.headers['x-hub-signature'] as string, APP_SECRET)).toBe(false);
    expect(hasValidHubSignature(request!.body, 'sha256=abc', APP_SECRET)).toBe(false);
  });
});

describe('inbound webhook: the body', () => {
  it('reads a customer message with its page, page-scoped sender, id, text, attachments and time', async () => {
    const { page } = simulator.platform.createPage({ name: 'Shop page' });
    const customer = simulator.platform.createCustomer(page.id, { name: 'Minh' });
    const at = new Date(Date.now() - 60_000);
    const requests = await webhooksOf(() => {
      simulator.platform.customerWrites(customer.psid, {
        text: 'áo này',
        attachments: [{ type: 'image', url: 'https://cdn.example/a.png' }],
        at,
      });
    });
    const [message] = simulator.platform.store.messages.filter((stored) => stored.psid === customer.psid);
    expect(itemsOf(requests)).toEqual<InboundItem[]>([
      {
        kind: 'message',
        platformPageId: page.id,
        customer: { platformCustomerId: customer.psid },
        platformMessageId: message!.mid,
        text: 'áo này',
        attachments: [{ type: 'image', url: 'https://cdn.example/a.png' }],
        sentAt: at,
      },
    ]);
  });

  it('reads every comment change of the feed: add, edited, hide, unhide, remove', async () => {
    const { page, accessToken } = simulator.platform.createPage({ name: 'Shop page' });
    const customer = simulator.platform.createCustomer(page.id, { name: 'Hoa Le' });
    const post = simulator.platform.createPost(page.id, { message: 'New arrivals' });
    let commentId = '';
    const requests = await webhooksOf(() => {
      commentId = simulator.platform.customerComments(post.id, { psid: customer.psid, message: 'giá?' }).comment.id;
      simulator.platform.customerEditsComment(commentId, 'giá bao nhiêu?');
      const pageOfToken = simulator.platform.pageForToken(accessToken);
      simulator.platform.setCommentHidden(pageOfToken, commentId, true);
      simulator.platform.setCommentHidden(pageOfToken, commentId, false);
      simulator.platform.customerRemovesComment(commentId);
    });
    const changes = itemsOf(requests).map((item) => (item.kind === 'comment' ? item.change : undefined));
    expect(changes.map((change) => change?.verb).sort()).toEqual(['add', 'edited', 'hide', 'remove', 'unhide']);
    const byVerb = new Map(changes.map((change) => [change!.verb, change!]));
    const commentedAt = new Date(Math.floor(simulator.platform.store.comment(commentId).createdAt.getTime() / 1000) * 1000);
    expect(byVerb.get('add')).toEqual({
      verb: 'add',
      platformCommentId: commentId,
      postId: post.id,
      parentId: post.id,
      author: { platformCustomerId: customer.psid, name: 'Hoa Le' },
      text: 'giá?',
      createdAt: commentedAt,
      // The feed entry's time, in whole seconds: when this change happened.
      changedAt: expect.any(Date),
    });
    expect(byVerb.get('hide')!.changedAt.getTime()).toBeGreaterThanOrEqual(commentedAt.getTime());
    expect(byVerb.get('edited')?.text).toBe('giá bao nhiêu?');
    expect(byVerb.get('remove')?.text).toBeNull();
    expect(itemsOf(requests).every((item) => item.platformPageId === page.id)).toBe(true);
  });

  it('reads the page’s own sends as echoes, and leaves out what Shopflow does not record', () => {
    const body = JSON.stringify({
      object: 'page',
      entry: [
        {
          id: 'page-1',
          time: 1,
          messaging: [
            {
              sender: { id: 'page-1' },
              recipient: { id: 'psid-1' },
              timestamp: 1_700_000_000_000,
              message: { is_echo: true, app_id: 1, mid: 'm_echo', text: 'Dạ' },
            },
            { sender: { id: 'psid-1' }, recipient: { id: 'page-1' }, timestamp: 1_700_000_000_001, read: { watermark: 1 } },
            {
              sender: { id: 'psid-1' },
              recipient: { id: 'page-1' },
              timestamp: 1_700_000_000_002,
              message: { mid: 'm_loc', attachments: [{ type: 'location', payload: {} }] },
            },
          ],
          changes: [{ field: 'feed', value: { item: 'reaction', verb: 'add' } }],
        },
      ],
    });
    expect(parseInboundWebhook(body)).toEqual([
      {
        kind: 'echo',
        platformPageId: 'page-1',
        customer: { platformCustomerId: 'psid-1' },
        platformMessageId: 'm_echo',
        text: 'Dạ',
        attachments: [],
        sentAt: new Date(1_700_000_000_000),
      },
    ]);
  });

  it('refuses a body that is not a page webhook', () => {
    expect(() => parseInboundWebhook('not json')).toThrow();
    expect(() => parseInboundWebhook(JSON.stringify({ object: 'instagram', entry: [] }))).toThrow();
  });
});
