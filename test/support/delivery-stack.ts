import { Client, Connection } from '@temporalio/client';
import type { WebhookReceiver } from '../../simulators/webhook-receiver.js';
import { OutboxRelay } from '../../workers/outbox-relay.js';
import { startTestApi, type TestApi } from './api.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { testEnv } from './environment.js';
import { createShopFixture, type ShopFixture } from './fixtures.js';
import { startTestReceiver, testOutboundPolicy } from './receiver.js';
import { startTestWorker, type TestTemporal } from './temporal.js';

export interface DeliveryStack {
  db: TestDatabase;
  receiver: WebhookReceiver;
  temporal: TestTemporal;
  api: TestApi;
  shop: ShopFixture;
  relay: OutboxRelay;
  stop: () => Promise<void>;
}

/**
 * Everything between an Open API call and a webhook receipt, for one suite: a fresh database, the
 * API, a worker on its own task queue, the outbox relay, the HTTPS receiver and a shop.
 */
export async function startDeliveryStack(options: { retryDelaysMs?: number[] } = {}): Promise<DeliveryStack> {
  const db = await createTestDatabase();
  const receiver = await startTestReceiver();
  const temporal = await startTestWorker({ sql: db.app, policy: testOutboundPolicy() });
  const api = await startTestApi(db.app);
  const shop = await createShopFixture(db.app);
  const connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  const relay = new OutboxRelay({ sql: db.app, deliveries: { ...temporal.deliveries, client: new Client({ connection }) }, pollIntervalMs: 200, ...options });
  await relay.start();
  return {
    db,
    receiver,
    temporal,
    api,
    shop,
    relay,
    stop: async () => {
      await relay.stop();
      await temporal.shutdown();
      await connection.close();
      await api.close();
      await receiver.close();
      await db.drop();
    },
  };
}
