import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Sql } from '../../db/client.js';
import { loadSettings } from '../../config/settings.js';
import { writeEvent } from '../../domain/events/index.js';
import { createFlow, EVENT_EXAMPLES, eventMatch, matchEvent, requestsForEvent, type FlowCondition } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { newShop } from '../../scripts/fixtures/index.js';
import { step } from '../../scripts/bootstrap/progress.js';
import { median } from '../quantile.js';
import { bigProduct, COSTLIEST } from './neighbours-noise.js';

export interface FlowMatching {
  flows: number;
  rulesPerFlow: number;
  /** Milliseconds per event, median of the rounds: matching the event to the shop's flows and rendering their requests. */
  withoutConditions: number;
  withConditions: number;
  /** Every condition turned the event away: no request, a shop-log row per flow instead. */
  allTurnedAway: number;
  /** With conditions over without (1: conditions cost nothing). */
  ratio: number;
  /** The relay's matching of a product of 2,048 variants to flows of the costliest condition, ms (median): one flow, then 47. */
  costliestOneFlow: number;
  costliestFlows: number;
}

const FLOWS = 50;
const EVENTS_PER_ROUND = 40;
const ROUNDS = 15;

/** Five rules the catalogue's example of `order.updated` meets; `last` replaces the fifth. */
const conditionOf = (last = { path: 'data.status', operator: 'ne', value: 'cancelled' }): FlowCondition =>
  ({
    match: 'all',
    rules: [
      { path: 'data.totalAmount', operator: 'gte', value: 100_000 },
      { path: 'data.salesChannelName', operator: 'eq', value: 'Facebook' },
      { path: 'changes.fields', operator: 'eq', value: 'shippingFee' },
      { path: 'data.tags.name', operator: 'in', value: ['Khách quen', 'VIP'] },
      last,
    ],
  }) as FlowCondition;

/** A shop of 50 flows on `order.updated` (each with `condition`, when given) and its events. */
async function shopWithFlows(sql: Sql, label: string, condition: FlowCondition | null): Promise<{ shopId: string; events: string[] }> {
  const { shopId } = await newShop(sql, { name: `Bench flow matching: ${label}` });
  const secretsKey = loadSettings().secretsKey;
  return withShop(sql, shopId, async (tx) => {
    for (let index = 0; index < FLOWS; index += 1) {
      const name = `Flow ${index}`;
      const input = { name, eventType: 'order.updated', url: `https://receiver.example/${index}`, state: 'on' as const, condition };
      await createFlow(tx, shopId, input, null, secretsKey);
    }
    const example = EVENT_EXAMPLES['order.updated'];
    const events: string[] = [];
    for (let index = 0; index < EVENTS_PER_ROUND; index += 1) {
      const data = { ...example.data, id: randomUUID() };
      events.push(await writeEvent(tx, { shopId, type: 'order.updated', resourceId: randomUUID(), data, changes: example.changes! }));
    }
    return { shopId, events };
  });
}

/**
 * What the Condition block costs where events meet flows (issue 32): `requestsForEvent`, as the relay
 * calls it for each event, in a shop of 50 flows without conditions, one of 50 flows of 5 rules each
 * that hold (the same 50 requests come out), and one whose conditions all turn the event away. The
 * three are timed in turns, round after round, in the same run; each shop's flows go when it is done.
 */
export async function flowMatchingScenario(sql: Sql): Promise<FlowMatching> {
  const shops = await step('creating three shops of 50 flows and their events', async () => ({
    without: await shopWithFlows(sql, 'no conditions', null),
    holding: await shopWithFlows(sql, 'conditions that hold', conditionOf()),
    turnedAway: await shopWithFlows(sql, 'conditions that fail', conditionOf({ path: 'data.status', operator: 'eq', value: 'cancelled' })),
  }));
  const timings = { without: [] as number[], holding: [] as number[], turnedAway: [] as number[] };
  const expected = { without: FLOWS, holding: FLOWS, turnedAway: 0 };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const variant of ['without', 'holding', 'turnedAway'] as const) {
        const { shopId, events } = shops[variant];
        const started = performance.now();
        for (const eventId of events) {
          const requests = await withShop(sql, shopId, (tx) => requestsForEvent(tx, eventId));
          if (requests.length !== expected[variant]) throw new Error(`${variant}: ${requests.length} requests, not ${expected[variant]}`);
        }
        timings[variant].push((performance.now() - started) / events.length);
      }
    }
  } finally {
    for (const { shopId } of Object.values(shops)) await withShop(sql, shopId, (tx) => tx`delete from flows`);
  }
  const costliest = await costliestOnBigProducts(sql);
  const result = {
    ...costliest,
    flows: FLOWS,
    rulesPerFlow: 5,
    withoutConditions: median(timings.without),
    withConditions: median(timings.holding),
    allTurnedAway: median(timings.turnedAway),
    ratio: median(timings.holding) / median(timings.without),
  };
  console.log(`matching one event to 50 flows, no conditions:           ${result.withoutConditions.toFixed(2)} ms`);
  console.log(`matching one event to 50 flows of 5 rules that hold:     ${result.withConditions.toFixed(2)} ms`);
  console.log(`matching one event to 50 flows whose conditions fail:    ${result.allTurnedAway.toFixed(2)} ms (50 skips logged)`);
  console.log(`ratio with conditions / without: ${result.ratio.toFixed(3)} (time per event; goal: close to 1)`);
  console.log(
    `matching a product of 2,048 variants to the costliest condition: 1 flow ${result.costliestOneFlow.toFixed(1)} ms, ` +
      `${COSTLY_FLOWS} flows ${result.costliestFlows.toFixed(1)} ms (×${(result.costliestFlows / result.costliestOneFlow).toFixed(2)}; ` +
      `their reading of the product is shared, so close to 1)`,
  );
  return result;
}

const COSTLY_FLOWS = 47;

/**
 * The relay's matching step (`matchEvent`, after its read) for the neighbours benchmark's costliest
 * condition on a product of 2,048 variants, in a shop of one such flow and a shop of 47, in turns,
 * ten rounds of a fresh product each: what one more costly flow adds.
 */
async function costliestOnBigProducts(sql: Sql): Promise<{ costliestOneFlow: number; costliestFlows: number }> {
  const secretsKey = loadSettings().secretsKey;
  const shopOf = async (flows: number) => {
    const { shopId } = await newShop(sql, { name: `Bench flow matching: ${flows} costly flows` });
    await withShop(sql, shopId, async (tx) => {
      for (let index = 0; index < flows; index += 1) {
        const input = {
          name: `Costly ${index}`,
          eventType: 'product.updated',
          url: `https://receiver.example/${index}`,
          state: 'on' as const,
        };
        await createFlow(tx, shopId, { ...input, condition: COSTLIEST }, null, secretsKey);
      }
    });
    return shopId;
  };
  const shops = { one: await shopOf(1), many: await shopOf(COSTLY_FLOWS) };
  const timings = { one: [] as number[], many: [] as number[] };
  try {
    for (let round = 0; round < 10; round += 1) {
      for (const variant of ['one', 'many'] as const) {
        const shopId = shops[variant];
        const match = await withShop(sql, shopId, async (tx) => {
          const eventId = await writeEvent(tx, { shopId, type: 'product.updated', resourceId: randomUUID(), data: bigProduct() });
          return eventMatch(tx, eventId);
        });
        const started = performance.now();
        const { requests } = await matchEvent(match!);
        timings[variant].push(performance.now() - started);
        if (requests.length !== 0) throw new Error(`the costliest condition held for ${requests.length} flows`);
      }
    }
  } finally {
    for (const shopId of Object.values(shops)) await withShop(sql, shopId, (tx) => tx`delete from flows`);
  }
  return { costliestOneFlow: median(timings.one), costliestFlows: median(timings.many) };
}
