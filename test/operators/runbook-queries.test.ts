import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deliverAnswered } from '../support/deliveries.js';
import { useSuite } from '../support/suite.js';

/**
 * Every query of docs/operators.md against the real Temporal server: each one the server accepts,
 * and the ones about a shop's deliveries finding exactly the runs this test made.
 */
const { temporal, receiver, shop } = useSuite({ shop: true, receiver: true, worker: true });

const runbook = readFileSync(new URL('../../docs/operators.md', import.meta.url), 'utf8');
const QUERIES = [...runbook.matchAll(/```temporal-query\n([\s\S]*?)```/g)].flatMap((block) => block[1]!.trim().split('\n'));

const deliverOnce = async (flowId: string, status: number) => (await deliverAnswered({ temporal, receiver, shop }, flowId, status)).status;

describe('the runbook’s queries (docs/operators.md)', () => {
  it('are all accepted by the server, and find a shop’s failed delivery and a flow’s runs', async () => {
    expect(QUERIES.length).toBeGreaterThanOrEqual(8);
    const { flowId } = await shop.newFlow({ name: 'Runbook', eventType: 'product.updated', url: receiver.url('x'), state: 'on' });
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

    const count = (query: string) => temporal.client.workflow.count(query);
    // Every query parses on the server: a query it cannot read is refused with an error.
    await Promise.all(filled.map(count));
    // The ones about this shop's failed deliveries and this flow's runs find exactly them, once the visibility store catches up.
    const expected = (query: string) =>
      query.includes("ExecutionStatus = 'Failed'") && query.includes('ShopSlug') ? 1 : query.startsWith('FlowId') ? 2 : undefined;
    const checked = filled.filter((query) => expected(query) !== undefined);
    expect(checked.length).toBeGreaterThanOrEqual(3);
    await expect
      .poll(() => Promise.all(checked.map(async (query) => [query, (await count(query)).count])), { timeout: 10_000 })
      .toEqual(checked.map((query) => [query, expected(query)]));
    const byOutcome = await count(filled.find((query) => query.includes('GROUP BY'))!);
    expect(Object.fromEntries(byOutcome.groups.map((group) => [String(group.groupValues[0]), group.count]))).toEqual({
      Completed: 1,
      Failed: 1,
    });
  });
});
