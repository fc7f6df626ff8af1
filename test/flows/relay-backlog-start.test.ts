import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { testTemporalClient } from '../support/temporal.js';
import { writeEvent } from '../../domain/events/outbox.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { OutboxRelay } from '../../workflows/deliveries/delivery-relay.js';
import { deliveryWorkflowId } from '../../workflows/deliveries/delivery-starter.js';

/**
 * Where a relay with eager start runs a delivery's first task (decision 0266): on its own worker,
 * but a shop's backlog beside other shops through the task queue, whose stand-alone workers then
 * keep its retries too. On the real outbox and engine; the engine's answer to each start is read
 * on the way back.
 */
const { db, temporal, receiver } = useSuite({ receiver: true, worker: true });

/** A shop with a flow on `product.updated` to an inbox of its own, and one event of it queued, `waitedMs` ago. */
async function shopWithQueuedEvent(waitedMs: number) {
  const shop = await createShopFixture(db.app);
  const inbox = randomUUID();
  const { flowId } = await shop.newFlow({ name: 'Flow', eventType: 'product.updated', url: receiver.url(inbox), state: 'on' });
  const eventId = await withShop(db.app, shop.shopId, (tx) =>
    writeEvent(tx, { shopId: shop.shopId, type: 'product.updated', resourceId: randomUUID(), data: { id: randomUUID() } }),
  );
  await db.admin`update event_queue set created_at = created_at - ${`${waitedMs} milliseconds`}::interval where event_id = ${eventId}`;
  return { inbox, workflowId: deliveryWorkflowId(flowId, eventId) };
}

/** A relay with eager start on the suite's worker, and what the engine answered each of its starts: eagerly started or not, by workflow id. */
function eagerRelay() {
  const client = testTemporalClient(temporal.nativeConnection);
  const eagerly = new Map<string, boolean>();
  const start = client.workflow.start.bind(client.workflow);
  client.workflow.start = (async (...args: Parameters<typeof client.workflow.start>) => {
    const handle = await start(...args);
    eagerly.set(handle.workflowId, handle.eagerlyStarted);
    return handle;
  }) as typeof client.workflow.start;
  return { relay: new OutboxRelay({ sql: db.app, deliveries: { ...temporal.deliveries, client }, eagerStart: true }), eagerly };
}

describe('where a relay starts a delivery', () => {
  it('starts a backlog beside another shop through the task queue and the other shop eagerly, and claims as many next time', async () => {
    const backlog = await shopWithQueuedEvent(2_000);
    const keepingUp = await shopWithQueuedEvent(0);
    const { relay, eagerly } = eagerRelay();
    expect(await relay.relayBatch()).toBe(2);
    expect(eagerly.get(backlog.workflowId)).toBe(false);
    expect(eagerly.get(keepingUp.workflowId)).toBe(true);
    // A start sent to the task queue on purpose is not a start the worker had no slot for.
    expect(relay.claimLimit()).toBe(100);
    await Promise.all([receiver.waitFor(backlog.inbox, 1), receiver.waitFor(keepingUp.inbox, 1)]);
  });

  it('starts a backlog eagerly when its shop is the only one with events', async () => {
    const alone = await shopWithQueuedEvent(2_000);
    const { relay, eagerly } = eagerRelay();
    expect(await relay.relayBatch()).toBe(1);
    expect(eagerly.get(alone.workflowId)).toBe(true);
    await receiver.waitFor(alone.inbox, 1);
  });
});
