import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type Server } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import Fastify from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  handleOnce,
  memorySeenStore,
  verifyWebhook,
  WebhookVerificationError,
  type SeenStore,
  type WebhookEvent,
  type WebhookReceiverOptions,
} from '../../clients/typescript/src/index.js';
import { fastifyWebhooks } from '../../clients/typescript/src/fastify.js';
import { nodeWebhookHandler } from '../../clients/typescript/src/node.js';
import { EVENT_EXAMPLES, rotateSigningSecret } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { logInAdminAndViewer } from '../support/admin-session.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { receiverTls } from './tls-server.js';

const { db, api, shop, receiver, request } = useSuite({
  api: true,
  shop: true,
  receiver: true,
  worker: true,
  relay: { retryDelaysMs: [200, 200, 200] },
});
let key: string;
const nodeEvents: WebhookEvent[] = [];
const fastifyEvents: WebhookEvent[] = [];
let nodeSecrets: string[] = [];
let fastifySecret = '';
let nodeServer: Server;
const fastify = Fastify({ https: receiverTls() });
const inbox = randomUUID();
let nodeFlowId = '';

const flow = (url: string) => shop.newFlow({ name: 'Kit', eventType: 'customer.created', url, state: 'on' });

beforeAll(async () => {
  key = (await shop.newKey(['pos.customers.read', 'pos.customers.create'])).key;
  nodeServer = createServer(
    receiverTls(),
    nodeWebhookHandler({ secrets: () => nodeSecrets, onEvent: (event) => void nodeEvents.push(event) }),
  );
  await new Promise<void>((resolve) => nodeServer.listen(0, '127.0.0.1', resolve));
  await fastify.register(fastifyWebhooks, {
    prefix: '/hooks',
    secrets: () => [fastifySecret],
    seen: memorySeenStore(),
    onEvent: (event) => void fastifyEvents.push(event),
  });
  const fastifyUrl = await fastify.listen({ port: 0, host: '127.0.0.1' });
  const nodeFlow = await flow(`https://localhost:${(nodeServer.address() as AddressInfo).port}/`);
  nodeFlowId = nodeFlow.flowId;
  nodeSecrets = [nodeFlow.secret];
  fastifySecret = (await flow(`${fastifyUrl.replace('127.0.0.1', 'localhost')}/hooks`)).secret;
  await flow(receiver.url(inbox));
});
afterAll(async () => {
  nodeServer.close();
  await fastify.close();
});

const createCustomer = async (name: string) => expect((await request('POST', '/customers', { key, body: { name } })).status).toBe(201);
const poll = (read: () => number, count: number) => expect.poll(read, { timeout: 20_000, interval: 100 }).toBeGreaterThanOrEqual(count);

describe('the webhook receiver kit, on real deliveries from the worker', () => {
  it('verifies a delivery at the node:http and Fastify adapters and types its data by event type', async () => {
    await createCustomer('Khách webhook');
    await poll(() => nodeEvents.length, 1);
    await poll(() => fastifyEvents.length, 1);
    const event = nodeEvents[0]!;
    if (event.type !== 'customer.created') throw new Error(`unexpected ${event.type}`);
    expect(event.data.name).toBe('Khách webhook');
    expect(fastifyEvents[0]).toEqual(event);
  });

  it('accepts a delivery signed during a secret rotation with the old or the new secret', async () => {
    const old = nodeSecrets[0]!;
    const fresh = await withShop(db.app, shop.shopId, (tx) => rotateSigningSecret(tx, nodeFlowId, shop.ownerId, testSecretsKey));
    nodeSecrets = [fresh]; // an integrator who has switched to the new secret already
    await createCustomer('Khách xoay khoá');
    await expect
      .poll(() => nodeEvents.some((event) => event.type === 'customer.created' && event.data.name === 'Khách xoay khoá'), {
        timeout: 20_000,
      })
      .toBe(true);
    nodeSecrets = [old]; // one who has not yet
    await createCustomer('Khách khoá cũ');
    await expect
      .poll(() => nodeEvents.some((event) => event.type === 'customer.created' && event.data.name === 'Khách khoá cũ'), { timeout: 20_000 })
      .toBe(true);
  });

  it('refuses a tampered body, an old timestamp and an unknown secret; de-duplicates a delivery sent twice', async () => {
    const [delivery] = await receiver.waitFor(inbox, 1);
    const headers = delivery!.headers as Record<string, string>;
    const secret = fastifySecret;
    const tampered = delivery!.body.replace('Khách webhook', 'Khách giả');
    const wrongSecret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(() => verifyWebhook(wrongSecret, headers, delivery!.body)).toThrow(WebhookVerificationError);
    // A delivery to the Fastify flow, signed by its secret, replayed: body changed, then ten minutes late, then twice as is.
    const webhookId = `msg_${randomUUID()}`;
    const now = new Date();
    const signed = (at: Date, body: string) => ({
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(webhookId, at, body),
      'content-type': 'application/json',
    });
    const post = (body: string, at: Date, sentBody = body) =>
      fastify.inject({ method: 'POST', url: '/hooks', headers: signed(at, body), payload: sentBody });
    expect((await post(delivery!.body, now, tampered)).statusCode).toBe(401);
    expect(() => verifyWebhook(secret, signed(now, delivery!.body), tampered)).toThrow(WebhookVerificationError);
    expect(verifyWebhook([wrongSecret, secret], signed(now, delivery!.body), delivery!.body).type).toBe('customer.created');
    const late = new Date(now.getTime() - 10 * 60_000);
    expect((await post(delivery!.body, late)).statusCode).toBe(401);
    expect(() => verifyWebhook(secret, signed(late, delivery!.body), delivery!.body)).toThrow(/timestamp/i);
    const before = fastifyEvents.length;
    expect((await post(delivery!.body, now)).statusCode).toBe(204);
    expect((await post(delivery!.body, now)).statusCode).toBe(204);
    // Only this event counts: a real delivery of another event may reach the Fastify flow meanwhile.
    const replayed = (JSON.parse(delivery!.body) as { id: string }).id;
    expect(fastifyEvents.slice(before).filter((event) => event.id === replayed)).toHaveLength(1);
  });

  it("tells a flow's test-run apart: event.test is true there, with made-up data, and false on real events", async () => {
    const { admin } = await logInAdminAndViewer(api.baseUrl, db.app, shop);
    const before = nodeEvents.length;
    expect((await admin('POST', `/flows/${nodeFlowId}/test-run`)).status).toBe(200);
    await poll(() => nodeEvents.length, before + 1);
    const tested = nodeEvents.slice(before).filter((event) => event.test);
    expect(tested).toEqual([expect.objectContaining({ type: 'customer.created', data: EVENT_EXAMPLES['customer.created'].data })]);
    const real = nodeEvents.filter((event) => event.type === 'customer.created' && event.data.name === 'Khách webhook');
    expect(real.map((event) => event.test)).toEqual([false]);
  });
});

/** A node:http receiver of the kit on a port of its own, which counts the bytes its sockets read. */
async function plainReceiver(options: Omit<WebhookReceiverOptions, 'secrets'>) {
  const sockets: Socket[] = [];
  const server: HttpServer = createHttpServer(nodeWebhookHandler({ secrets: RECEIVER_SECRET, ...options }));
  server.on('connection', (socket) => sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    port: (server.address() as AddressInfo).port,
    bytesRead: () => sockets.reduce((total, socket) => total + socket.bytesRead, 0),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const RECEIVER_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const signedDelivery = (webhookId: string, body = '{"id":"evt_1","type":"customer.created","data":{}}') => {
  const at = new Date();
  return {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': webhookId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(RECEIVER_SECRET).sign(webhookId, at, body),
    },
  };
};
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A raw HTTP/1.1 exchange: writes `head`, then `body` chunks (waiting for the socket to drain) until
 * they run out or the server closes the connection; then waits up to `waitMs` for the server to close it.
 */
async function rawExchange(port: number, head: string, body: Iterable<Buffer>, waitMs: number) {
  const socket = connect(port, '127.0.0.1');
  let answer = '';
  let closed = false;
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  socket.on('error', () => {}); // a reset once the server stops reading is the point
  const closing = new Promise<void>((resolve) => socket.on('close', () => ((closed = true), resolve())));
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(head);
  let sent = 0;
  for (const chunk of body) {
    if (closed || socket.destroyed) break;
    sent += chunk.length;
    if (!socket.write(chunk)) await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), closing]);
  }
  await Promise.race([closing, pause(waitMs)]);
  socket.destroy();
  return { status: answer.split(' ')[1], closed, sent };
}

describe('the receiver kit, against duplicates, large bodies and slow senders', () => {
  it('runs the handler once for two concurrent deliveries of one webhook-id, and again after a failed run', async () => {
    let runs = 0;
    let failNext = false;
    const receiver = await plainReceiver({
      seen: memorySeenStore(),
      onEvent: async () => {
        runs += 1;
        await pause(200);
        if (failNext) throw new Error('the database is down');
      },
    });
    try {
      const send = (webhookId: string) => fetch(receiver.url, signedDelivery(webhookId)).then((response) => response.status);
      const twice = await Promise.all([send('msg_same'), send('msg_same')]);
      // The duplicate that arrives while the first runs is told to come back: the first may yet fail.
      expect(twice.sort()).toEqual([204, 409]);
      expect(await send('msg_same')).toBe(204);
      expect(runs).toBe(1);

      failNext = true;
      expect(await Promise.all([send('msg_failing'), send('msg_failing')])).toEqual(expect.arrayContaining([500, 409]));
      failNext = false;
      expect(await send('msg_failing')).toBe(204); // the failed run released it: the retry runs
      expect(runs).toBe(3);
    } finally {
      await receiver.close();
    }
  });

  it('runs the handler once for concurrent duplicates with a store of the earlier has/add kind too', async () => {
    const ids = new Set<string>();
    const store: SeenStore = {
      has: async (id) => (await pause(50), ids.has(id)),
      add: (id) => void ids.add(id),
    };
    let runs = 0;
    const handle = async () => {
      runs += 1;
      await pause(50);
    };
    const ran = await Promise.all([
      handleOnce(store, 'msg_x', handle),
      handleOnce(store, 'msg_x', handle),
      handleOnce(store, 'msg_x', handle),
    ]);
    expect(ran.filter(Boolean)).toHaveLength(1);
    expect(await handleOnce(store, 'msg_x', handle)).toBe(false);
    expect(runs).toBe(1);
  });

  it('stops reading a body past maxBodyBytes: answers 413 and closes the connection before the sender is done', async () => {
    const receiver = await plainReceiver({ maxBodyBytes: 64 * 1024, onEvent: () => {} });
    try {
      const total = 64 * 1024 * 1024;
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
      const chunks = function* () {
        for (let sent = 0; sent < total; sent += chunk.length) yield framed;
      };
      const head = 'POST / HTTP/1.1\r\nhost: receiver\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n';
      const streamed = await rawExchange(receiver.port, head, chunks(), 5_000);
      expect(streamed.closed).toBe(true);
      expect(streamed.sent).toBeLessThan(total);
      expect(receiver.bytesRead()).toBeLessThan(4 * 1024 * 1024);
      if (streamed.status) expect(streamed.status).toBe('413');

      // A declared length past the limit is refused before any of the body is read.
      const declared = await rawExchange(receiver.port, `POST / HTTP/1.1\r\nhost: receiver\r\ncontent-length: ${total}\r\n\r\n`, [], 5_000);
      expect(declared).toMatchObject({ status: '413', closed: true });
    } finally {
      await receiver.close();
    }
  });

  it('answers 408 and closes the connection when a sender never finishes the body', async () => {
    const receiver = await plainReceiver({ readTimeoutMs: 300, onEvent: () => {} });
    try {
      const started = Date.now();
      const head = 'POST / HTTP/1.1\r\nhost: receiver\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n';
      const slow = await rawExchange(receiver.port, head, [Buffer.from('{"id":')], 5_000);
      expect(slow).toMatchObject({ status: '408', closed: true });
      // Cut off by the 300 ms read time-out, not by the exchange's own 5 s.
      expect(Date.now() - started).toBeLessThan(4_500);
    } finally {
      await receiver.close();
    }
  });
});
