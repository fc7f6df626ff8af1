import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFlow } from '../../domain/flows/flows.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { ensureHousekeepingSchedule } from '../../workers/housekeeping-schedule.js';
import type { HousekeepingResult } from '../../activities/housekeeping/housekeeping.js';
import { createShopFixture, testSecretsKey, type ShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';

const { db, shop, temporal } = useSuite({ worker: true, shop: true });
let other: ShopFixture;

/** For each shop: one row of each kind past its use and one still live, written as the owner with backdated times. */
async function seedRows(fixture: ShopFixture): Promise<void> {
  const { applicationId } = await fixture.newKey(['pos.orders.read']);
  const { flowId } = await withShop(db.app, fixture.shopId, (tx) =>
    createFlow(tx, fixture.shopId, { name: 'F', eventType: 'order.created', url: 'https://hooks.example.com/x' }, null, testSecretsKey),
  );
  const deliveryId = `msg_${randomUUID()}`;
  await db.admin.begin(async (tx) => {
    await tx`
      insert into idempotency_keys (shop_id, application_id, idempotency_key, request_hash, state, created_at) values
        (${fixture.shopId}, ${applicationId}, 'expired', 'h', 'done', now() - interval '25 hours'),
        (${fixture.shopId}, ${applicationId}, 'live', 'h', 'done', now() - interval '23 hours')`;
    await tx`
      insert into admin_sessions (token_hash, shop_id, user_id, csrf_token, expires_at) values
        (${`expired-${fixture.shopId}`}, ${fixture.shopId}, ${fixture.ownerId}, 'c', now() - interval '1 minute'),
        (${`live-${fixture.shopId}`}, ${fixture.shopId}, ${fixture.ownerId}, 'c', now() + interval '1 hour')`;
    await tx`
      insert into deliveries (delivery_id, shop_id, flow_id, event_id, event_type, workflow_id, status)
      values (${deliveryId}, ${fixture.shopId}, ${flowId}, 'evt_1', 'order.created', 'w', 'delivered')`;
    await tx`
      insert into delivery_attempts (shop_id, delivery_id, attempted_at, duration_ms, verdict, response_excerpt) values
        (${fixture.shopId}, ${deliveryId}, now() - interval '31 days', 5, 'retry', 'old'),
        (${fixture.shopId}, ${deliveryId}, now() - interval '29 days', 5, 'delivered', 'kept')`;
    await tx`
      insert into rate_limit_counters (scope, window_start, hits) values
        (${`old:${fixture.shopId}`}, date_trunc('minute', now()) - interval '10 minutes', 3),
        (${`now:${fixture.shopId}`}, date_trunc('minute', now()), 3)`;
  });
}

const remaining = async (shopId: string) => {
  const [row] = await db.admin<Record<string, string[]>[]>`
    select
      array(select idempotency_key from idempotency_keys where shop_id = ${shopId} order by 1) as idempotency,
      array(select split_part(token_hash, '-', 1) from admin_sessions where shop_id = ${shopId} order by 1) as sessions,
      array(select response_excerpt from delivery_attempts where shop_id = ${shopId} order by 1) as attempts,
      array(select split_part(scope, ':', 1) from rate_limit_counters where scope like ${`%:${shopId}`} order by 1) as windows`;
  return row;
};

beforeAll(async () => {
  other = await createShopFixture(db.app);
  await Promise.all([seedRows(shop), seedRows(other)]);
});

describe('housekeeping', () => {
  it('lets no other transaction see or delete another shop’s expired rows', async () => {
    const fromShop = await withShop(db.app, shop.shopId, (tx) => tx`delete from admin_sessions where shop_id = ${other.shopId}`);
    const fromNoShop = await db.app`delete from idempotency_keys where created_at < now() - interval '24 hours'`;
    expect([fromShop.count, fromNoShop.count]).toEqual([0, 0]);
  });

  it('is a Temporal Schedule, registered idempotently, whose run purges what is past its use in every shop and leaves live rows', async () => {
    const scheduleId = `housekeeping-${randomUUID()}`;
    const input = { attemptRetentionDays: 30 };
    await ensureHousekeepingSchedule(temporal.client, { taskQueue: temporal.taskQueue, input: { attemptRetentionDays: 7 }, scheduleId });
    // A second registration (the next worker start) brings the schedule to the current settings.
    await ensureHousekeepingSchedule(temporal.client, { taskQueue: temporal.taskQueue, input, scheduleId });
    const handle = temporal.client.schedule.getHandle(scheduleId);
    try {
      const described = await handle.describe();
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'housekeepingWorkflow', args: [input] });
      expect(described.spec.intervals).toHaveLength(1);

      await handle.trigger();
      let workflowId: string | undefined;
      for (let tries = 0; tries < 100 && !workflowId; tries += 1) {
        workflowId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
        if (!workflowId) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const result = (await temporal.client.workflow.getHandle(workflowId!).result()) as HousekeepingResult;
      expect(result.idempotencyKeys).toBeGreaterThanOrEqual(2);
      expect(result.adminSessions).toBeGreaterThanOrEqual(2);
      expect(result.deliveryAttempts).toBeGreaterThanOrEqual(2);
      expect(result.rateLimitWindows).toBeGreaterThanOrEqual(2);
      for (const fixture of [shop, other]) {
        expect(await remaining(fixture.shopId)).toEqual({
          idempotency: ['live'],
          sessions: ['live'],
          attempts: ['kept'],
          windows: ['now'],
        });
      }
    } finally {
      await handle.delete();
    }
  });
});
