import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ulid } from 'ulidx';
import { describe, expect, it } from 'vitest';
import { createFlow } from '../../domain/flows/flows.js';
import { sealDeliveryRequest } from '../../domain/flows/delivery-requests.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { deliveryOutcome, deliveryWorkflowId, searchAttributes } from '../../workflows/deliveries/delivery-starter.js';
import { deliveryWorkflow } from '../../workflows/deliveries/delivery-workflow.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { TEST_DELIVERY_REQUEST_KEY } from '../support/temporal.js';

/**
 * What an operator asks the Temporal server (issue 29): undelivered deliveries are found by
 * `ExecutionStatus = 'Failed'` and counted by `GROUP BY ExecutionStatus`, beside the delivered ones.
 */
const { db, temporal, receiver, shop } = useSuite({ shop: true, receiver: true, worker: true });

/** One delivery of a new event to `flowId`, answered by `status`, run to its end. */
async function deliverOnce(flowId: string, status: number) {
  const inbox = randomUUID();
  receiver.respondWith(inbox, [{ status }]);
  const eventId = `evt_${ulid()}`;
  const input = {
    shopId: shop.shopId,
    flowId,
    eventId,
    eventType: 'product.updated',
    deliveryId: `msg_${ulid()}`,
    url: receiver.url(inbox),
    payload: JSON.stringify({ id: eventId }),
    retryDelaysMs: [50],
  };
  const handle = await temporal.client.workflow.start(deliveryWorkflow, {
    taskQueue: temporal.taskQueue,
    workflowId: deliveryWorkflowId(flowId, eventId),
    args: [sealDeliveryRequest(TEST_DELIVERY_REQUEST_KEY, input)],
    typedSearchAttributes: searchAttributes(input),
  });
  return (await deliveryOutcome(handle)).status;
}

describe('undelivered deliveries in Temporal’s own status', () => {
  it('are found by ExecutionStatus = Failed and counted by GROUP BY ExecutionStatus', async () => {
    const { flowId } = await withShop(db.app, shop.shopId, (tx) =>
      createFlow(
        tx,
        shop.shopId,
        { name: 'Counted', eventType: 'product.updated', url: receiver.url('x'), state: 'on' },
        null,
        testSecretsKey,
      ),
    );
    expect([await deliverOnce(flowId, 200), await deliverOnce(flowId, 500), await deliverOnce(flowId, 410)]).toEqual([
      'delivered',
      'failed',
      'gone',
    ]);

    const ofFlow = `FlowId = '${flowId}'`;
    let groups: Record<string, number> = {};
    for (let tries = 0; tries < 100 && (groups.Failed !== 2 || groups.Completed !== 1); tries += 1) {
      if (tries > 0) await sleep(100); // the visibility store catches up
      const counted = await temporal.client.workflow.count(`${ofFlow} GROUP BY ExecutionStatus`);
      groups = Object.fromEntries(counted.groups.map((group) => [String(group.groupValues[0]), group.count]));
    }
    expect(groups).toEqual({ Completed: 1, Failed: 2 });
    const failed: string[] = [];
    for await (const run of temporal.client.workflow.list({ query: `${ofFlow} AND ExecutionStatus = 'Failed'` })) {
      failed.push(run.status.name);
    }
    expect(failed).toEqual(['FAILED', 'FAILED']);
  });
});
