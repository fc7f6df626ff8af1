import { Connection } from '@temporalio/client';
import { afterAll, beforeAll } from 'vitest';
import type { App } from '../../api/app.js';
import { CHAT_WEBHOOK_PATH } from '../../api/routes/chat/chat-webhook.js';
import { DEFAULT_APP_SECRET, startChatPlatform, type RunningChatPlatform } from '../../simulators/chat/index.js';
import type { WebhookReceiver } from '../../simulators/webhook-receiver.js';
import { OutboxRelay } from '../../workflows/deliveries/delivery-relay.js';
import { startTestApi, type TestApi, type TestApiOptions } from './api.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { testEnv } from './environment.js';
import { bearer, createShopFixture, type ShopFixture } from './fixtures.js';
import { startTestReceiver, testOutboundPolicy } from './receiver.js';
import { startTestWorker, type TestTemporal } from './temporal.js';
import { testTemporalClient } from './temporal.js';

export interface SuiteOptions {
  /** The real API over HTTP; `routes` adds routes before it listens (stand-ins, a route that throws). */
  api?: boolean | (Omit<TestApiOptions, 'taskQueue'> & { routes?: (app: App, db: TestDatabase) => void });
  /** A shop with an owner. */
  shop?: boolean;
  /** The local HTTPS webhook receiver. */
  receiver?: boolean;
  /**
   * A Shopflow worker on its own task queue; the API, when there is one, starts its deliveries there.
   * `{ shipments: true }`: the shipments' queue served too, by the worker and by the API's own (as
   * deployed), for a file that pushes, cancels or tracks shipments; each is a workflow thread and
   * pollers that the other files leave the machine's CPU.
   */
  worker?: boolean | { shipments: true };
  /** The outbox relay on the worker's queue, polling every 200 ms; `retryDelaysMs` shortens the deliveries' schedule. */
  relay?: boolean | { retryDelaysMs?: number[] };
  /**
   * The chat-platform simulator: the API sends to it and takes its signed webhooks (retried after 50 ms);
   * `verifyToken` is the API's answer to the platform's subscription check.
   */
  chat?: boolean | { verifyToken: string };
}

export interface Suite {
  /** Always there: a fresh database copied from the migrated template. */
  readonly db: TestDatabase;
  readonly api: TestApi;
  readonly shop: ShopFixture;
  readonly temporal: TestTemporal;
  readonly receiver: WebhookReceiver;
  readonly chat: RunningChatPlatform;
  /** A request to the Open API (`/api/open/v1` + `path`), with `key` as the bearer and `body` as JSON when they are given. */
  request: (
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ) => Promise<Response>;
  /** A GET of the Open API, with `key` as the bearer when it is given. */
  get: (path: string, key?: string) => Promise<Response>;
}

/**
 * One suite's services, started by a `beforeAll` and stopped by an `afterAll` where it is called (the
 * file, or a `describe`): a fresh database, and the parts `options` asks for, started in the order
 * database, receiver, worker, API, shop, relay and stopped in reverse. The parts are there before
 * they start (filled in place; the receiver, an instance, is a stand-in that forwards to it), so a
 * file takes them at once: `const { db, api, shop } = useSuite({ api: true, shop: true });`, to use in
 * hooks and tests. A part not asked for throws when read.
 */
export function useSuite(options: SuiteOptions = {}): Suite {
  if (options.relay && !options.worker) throw new Error('useSuite: the relay starts deliveries on the worker: ask for the worker too');
  const db = {} as TestDatabase;
  const api = {} as TestApi;
  const shop = {} as ShopFixture;
  const temporal = {} as TestTemporal;
  const chat = {} as RunningChatPlatform;
  let started: WebhookReceiver | undefined;
  const receiver = new Proxy({} as WebhookReceiver, {
    get: (_, name) => {
      if (!started) throw new Error('useSuite: the receiver starts in beforeAll: use it in hooks and tests');
      const value: unknown = Reflect.get(started, name, started);
      return typeof value === 'function' ? value.bind(started) : value;
    },
  });
  const stops: (() => Promise<void>)[] = [];
  const shipments = typeof options.worker === 'object' && options.worker.shipments;

  beforeAll(async () => {
    Object.assign(db, await createTestDatabase());
    stops.push(db.drop);
    if (options.receiver) {
      started = await startTestReceiver();
      stops.push(receiver.close);
    }
    if (options.worker) {
      Object.assign(temporal, await startTestWorker({ sql: db.app, policy: testOutboundPolicy(), shipments }));
      stops.push(temporal.shutdown);
    }
    if (options.chat) {
      Object.assign(chat, await startChatPlatform({ webhookRetryDelaysMs: [50] }));
      stops.push(chat.close);
    }
    if (options.api) {
      const { routes, ...apiOptions } = options.api === true ? {} : options.api;
      Object.assign(
        api,
        await startTestApi(db.app, routes && ((app) => routes(app, db)), {
          ...apiOptions,
          taskQueue: options.worker ? temporal.taskQueue : undefined,
          shipmentWorker: shipments && apiOptions.shipmentWorker !== false,
          ...(options.chat
            ? { chatPlatformUrl: chat.url, chatWebhook: { appSecret: DEFAULT_APP_SECRET, ...(options.chat === true ? {} : options.chat) } }
            : {}),
        }),
      );
      stops.push(api.close);
      if (options.chat) chat.platform.defaultApp.callbackUrl = `${api.baseUrl}${CHAT_WEBHOOK_PATH}`;
    }
    if (options.shop) Object.assign(shop, await createShopFixture(db.app));
    if (options.relay) {
      const connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
      stops.push(() => connection.close());
      const schedule = options.relay === true ? {} : options.relay;
      const relay = new OutboxRelay({
        sql: db.app,
        deliveries: { ...temporal.deliveries, client: testTemporalClient(connection) },
        pollIntervalMs: 200,
        ...schedule,
      });
      await relay.start();
      stops.push(() => relay.stop());
    }
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
  });

  const asked = <T>(part: keyof SuiteOptions, value: T): T => {
    if (!options[part]) throw new Error(`useSuite: this suite did not ask for ${part}`);
    return value;
  };
  const request: Suite['request'] = (method, path, { key, body, headers = {} } = {}) =>
    fetch(`${asked('api', api).baseUrl}/api/open/v1${path}`, {
      method,
      headers: {
        ...(key === undefined ? {} : bearer(key)),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    db,
    get api() {
      return asked('api', api);
    },
    get shop() {
      return asked('shop', shop);
    },
    get temporal() {
      return asked('worker', temporal);
    },
    get receiver() {
      return asked('receiver', receiver);
    },
    get chat() {
      return asked('chat', chat);
    },
    request,
    get: (path, key) => request('GET', path, { key }),
  };
}
