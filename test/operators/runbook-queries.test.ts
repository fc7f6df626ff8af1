import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
 * Every query of docs/operators.md against the real Temporal server: each one the server accepts,
 * and the ones about a shop's deliveries finding exactly the runs this test made.
 */
const { db, temporal, receiver, shop } = useSuite({ shop: true, receiver: true, worker: true });

const runbook = readFileSync(new URL('../../docs/operators.md', import.meta.url), 'utf8');
const QUERIES = [...runbook.matchAll(/```temporal-query\n([\s\S]*?)```/g)].flatMap((block) => block[1]!.trim().split('\n'));

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
    retryDelaysMs: [],
    about: { shopSlug: shop.slug, flowName: 'Runbook', record: null },
  };
  await deliveryOutcome(
    await temporal.client.workflow.start(deliveryWorkflow, {
      taskQueue: temporal.taskQueue,
      workflowId: deliveryWorkflowId(flowId, eventId),
      args: [sealDeliveryRequest(TEST_DELIVERY_REQUEST_KEY, input)],
      typedSearchAttributes: searchAttributes(input),
    }),
  );
}

describe('the runbook’s queries (docs/operators.md)', () => {
  it('are all accepted by the server, and find a shop’s failed delivery and a flow’s runs', async () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(8);
    const { flowId } = await withShop(db.app, shop.shopId, (tx) =>
      createFlow(
        tx,
        shop.shopId,
        { name: 'Runbook', eventType: 'product.updated', url: receiver.url('x'), state: 'on' },
        null,
        testSecretsKey,
      ),
    );
    await deliverOnce(flowId, 200);
    await deliverOnce(flowId, 500);
    const values: Record<string, string> = {
      shopSlug: shop.slug,
      flowId,
      carrier: 'carrier_b',
      hourAgo: new Date(Date.now() - 3_600_000).toISOString(),
      dayAgo: new Date(Date.now() - 86_400_000).toISOString(),
    };
    const filled = QUERIES.map((query) => query.replace(/\{(\w+)\}/g, (_, name: string) => values[name]!));
    expect(filled.filter((query) => /\{\w+\}/.test(query))).toEqual([]);

    const counts = async () => Promise.all(filled.map(async (query) => (await temporal.client.workflow.count(query)).count));
    let counted = await counts();
    const expected = (query: string) =>
      query.includes("ExecutionStatus = 'Failed'") && query.includes('ShopSlug') ? 1 : query.startsWith('FlowId') ? 2 : undefined;
    for (
      let tries = 0;
      tries < 100 && filled.some((query, index) => expected(query) !== undefined && counted[index] !== expected(query));
      tries += 1
    ) {
      await sleep(100); // the visibility store catches up
      counted = await counts();
    }
    expect(filled.map((query, index) => [query, expected(query) ?? 'any', expected(query) === undefined ? 'any' : counted[index]])).toEqual(
      filled.map((query) => [query, expected(query) ?? 'any', expected(query) ?? 'any']),
    );
    const byOutcome = await temporal.client.workflow.count(filled.find((query) => query.includes('GROUP BY'))!);
    expect(Object.fromEntries(byOutcome.groups.map((group) => [String(group.groupValues[0]), group.count]))).toEqual({
      Completed: 1,
      Failed: 1,
    });
  });
});
