import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShopFixture, testSecretsKey, type ShopFixture } from '../support/fixtures.js';
import { testEnv } from '../support/environment.js';
import { testOutboundPolicy } from '../support/receiver.js';
import { TEST_WORKFLOW_SEAL_KEY, testTemporalClient, testWorkerOptions } from '../support/temporal.js';
import { useSuite } from '../support/suite.js';
import { writeEvent } from '../../domain/events/outbox.js';
import { createFlow, requestsForEvent, type DeliveryRequest } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { createShopflowWorker } from '../../workers/setup/create-worker.js';
import { deliveryWorkflowId, startDelivery, type DeliveryStarter } from '../../workflows/deliveries/delivery-starter.js';

/**
 * Issue 46: each shop its share of the engine. Shop A's 1,000 deliveries wait in a task queue no
 * worker serves yet; then shop B's one delivery starts. Once a worker comes, B's first attempt goes
 * out among the first of the 1,001, not after A's backlog: every workflow a shop starts carries the
 * shop as its fairness key (workflows/shop-fairness.ts), and the server dispatches a backlog by key
 * in turn (matching.enableFairness). Without fairness B's attempt is the 1,001st.
 */
const BACKLOG = 1_000;
/** The bound: B's attempt is received before this many of A's (first come, first served: after all 1,000). */
const BOUND = 200;

const { db, receiver } = useSuite({ receiver: true });
const taskQueue = `fairness-${randomUUID()}`;
let connection: Connection;
let starter: DeliveryStarter;
let noisy: ShopFixture;
let quiet: ShopFixture;

beforeAll(async () => {
  connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  starter = { client: testTemporalClient(connection), taskQueue, sealKey: TEST_WORKFLOW_SEAL_KEY };
  [noisy, quiet] = [await createShopFixture(db.app), await createShopFixture(db.app)];
});
afterAll(async () => {
  await connection?.close();
});

/** `count` events of the shop, each with its flow's delivery request (the relay's work, done here). */
async function deliveryRequests(shop: ShopFixture, inbox: string, count: number): Promise<DeliveryRequest[]> {
  return withShop(db.app, shop.shopId, async (tx) => {
    const { flowId } = await createFlow(
      tx,
      shop.shopId,
      { name: 'Fair', eventType: 'product.updated', url: receiver.url(inbox), state: 'on' },
      null,
      testSecretsKey,
    );
    const requests: DeliveryRequest[] = [];
    for (let index = 0; index < count; index++) {
      const data = { id: randomUUID(), name: `Áo ${index}` };
      const eventId = await writeEvent(tx, { shopId: shop.shopId, type: 'product.updated', resourceId: data.id, data });
      requests.push(...(await requestsForEvent(tx, eventId)).filter((request) => request.flowId === flowId));
    }
    return requests;
  });
}

async function startAll(requests: DeliveryRequest[]): Promise<void> {
  for (let from = 0; from < requests.length; from += 50)
    await Promise.all(requests.slice(from, from + 50).map((request) => startDelivery(starter, request)));
}

describe('the engine, shared by every shop', () => {
  it("dispatches another shop's first attempt ahead of a shop's backlog of 1,000", { timeout: 240_000 }, async () => {
    const [noisyInbox, quietInbox] = [`noisy-${randomUUID()}`, `quiet-${randomUUID()}`];
    const backlog = await deliveryRequests(noisy, noisyInbox, BACKLOG);
    const [first] = await deliveryRequests(quiet, quietInbox, 1);
    await startAll(backlog);
    await startAll([first!]);

    const native = await NativeConnection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
    const worker = await createShopflowWorker({
      ...(await testWorkerOptions({ sql: db.app, policy: testOutboundPolicy(), connection: native, taskQueue })),
      pollsAtMost: 2,
    });
    const running = worker.run();
    try {
      const [quietAttempt] = await receiver.waitFor(quietInbox, 1, 120_000);
      const noisyBefore = receiver.received(noisyInbox).filter((request) => request.receivedAt <= quietAttempt!.receivedAt).length;
      expect(noisyBefore).toBeLessThan(BOUND);
      // The backlog is served too: every one of A's deliveries arrives.
      await receiver.waitFor(noisyInbox, BACKLOG, 180_000);
      const described = await starter.client.workflow.getHandle(deliveryWorkflowId(first!.flowId, first!.eventId)).describe();
      expect(described.raw.workflowExecutionInfo?.priority?.fairnessKey).toBe(quiet.shopId);
    } finally {
      worker.shutdown();
      await running;
      await native.close();
    }
  });
});
