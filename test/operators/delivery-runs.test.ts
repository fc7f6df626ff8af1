import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withShop } from '../../domain/kernel/tenancy.js';
import { deliveryOutcome, deliveryWorkflowId, runTestDelivery, startDelivery } from '../../workflows/deliveries/delivery-starter.js';
import { requestsForEvent, testRunRequest } from '../../domain/flows/index.js';
import { writeEvent } from '../../domain/events/index.js';
import { ShopSlugKey, TestRunKey } from '../../workflows/search-attributes.js';
import { deliverAnswered } from '../support/deliveries.js';
import { useSuite } from '../support/suite.js';

/**
 * Deliveries as an operator reads them on the Temporal server (issue 29): undelivered ones found by
 * `ExecutionStatus = 'Failed'` and counted by `GROUP BY ExecutionStatus`; every run with a summary
 * naming its flow, event and record, the shop's slug and whether it is a test-run as search attributes.
 */
const { db, temporal, receiver, shop } = useSuite({ shop: true, receiver: true, worker: true });

const deliverOnce = async (flowId: string, status: number) => (await deliverAnswered({ temporal, receiver, shop }, flowId, status)).status;

describe('undelivered deliveries in Temporal’s own status', () => {
  it('are found by ExecutionStatus = Failed and counted by GROUP BY ExecutionStatus', async () => {
    const { flowId } = await shop.newFlow({ name: 'Counted', eventType: 'product.updated', url: receiver.url('x'), state: 'on' });
    expect([await deliverOnce(flowId, 200), await deliverOnce(flowId, 500), await deliverOnce(flowId, 410)]).toEqual([
      'delivered',
      'failed',
      'gone',
    ]);

    const ofFlow = `FlowId = '${flowId}'`;
    const groups = async () => {
      const counted = await temporal.client.workflow.count(`${ofFlow} GROUP BY ExecutionStatus`);
      return Object.fromEntries(counted.groups.map((group) => [String(group.groupValues[0]), group.count]));
    };
    // Once the visibility store has caught up.
    await expect.poll(groups, { timeout: 10_000 }).toEqual({ Completed: 1, Failed: 2 });
    const failed: string[] = [];
    for await (const run of temporal.client.workflow.list({ query: `${ofFlow} AND ExecutionStatus = 'Failed'` })) {
      failed.push(run.status.name);
    }
    expect(failed).toEqual(['FAILED', 'FAILED']);
  });
});

describe('a delivery run read at a glance', () => {
  it('carries a summary (flow, event, record) and details, and ShopSlug and TestRun to filter by', async () => {
    const { flowId } = await shop.newFlow({ name: 'Đơn sang ERP', eventType: 'order.created', url: receiver.url('erp'), state: 'on' });
    const [request] = await withShop(db.app, shop.shopId, async (tx) => {
      const eventId = await writeEvent(tx, {
        shopId: shop.shopId,
        type: 'order.created',
        resourceId: randomUUID(),
        data: { code: 'DH-0042' },
      });
      return requestsForEvent(tx, eventId);
    });
    expect(await startDelivery(temporal.deliveries, request!)).toBe('started');
    const handle = temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, request!.eventId));
    await deliveryOutcome(handle);
    const run = await handle.describe();
    expect(await run.staticSummary()).toBe('Đơn sang ERP: order.created DH-0042');
    expect(await run.staticDetails()).toContain(`**Shop** ${shop.slug}`);
    expect(run.typedSearchAttributes.get(ShopSlugKey)).toBe(shop.slug);
    expect(run.typedSearchAttributes.get(TestRunKey)).toBe(false);

    const { request: testRun } = await withShop(db.app, shop.shopId, (tx) => testRunRequest(tx, shop.shopId, flowId, 'operator'));
    const { workflowId } = await runTestDelivery(temporal.deliveries, testRun);
    const tried = await temporal.client.workflow.getHandle(workflowId).describe();
    expect(await tried.staticSummary()).toMatch(/^test-run of Đơn sang ERP: order\.created/);
    expect(tried.typedSearchAttributes.get(TestRunKey)).toBe(true);
  });
});
