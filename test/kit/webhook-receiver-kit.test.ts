import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fastifyWebhooks,
  memorySeenStore,
  nodeWebhookHandler,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
} from '../../clients/typescript/src/index.js';
import { createFlow, rotateSigningSecret } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { receiverTls } from './tls-server.js';

const { db, shop, receiver, request } = useSuite({
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

const flow = (url: string) =>
  withShop(db.app, shop.shopId, (tx) =>
    createFlow(tx, shop.shopId, { name: 'Kit', eventType: 'customer.created', url, state: 'on' }, null, testSecretsKey),
  );

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
    expect(fastifyEvents.length - before).toBe(1);
  });
});
