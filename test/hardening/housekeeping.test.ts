import { randomUUID } from 'node:crypto';
import { ScheduleOverlapPolicy } from '@temporalio/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RETENTION, loadSettings } from '../../config/settings.js';
import { newEventId } from '../../domain/events/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { ensureHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import type { HousekeepingResult } from '../../activities/housekeeping/housekeeping.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';

const { db, shop, temporal } = useSuite({ worker: true, shop: true });
let other: ShopFixture;

// The test worker keeps the default retention: deliveries 90 days, events 30.
const { deliveryDays, eventDays } = DEFAULT_RETENTION;
const PAST_DELIVERIES = deliveryDays + 1;
const PAST_EVENTS = eventDays + 1;

/** Outbox events, named by `data.label`: [label, days old, still queued]. */
const EVENTS: [string, number, boolean][] = [
  ['old', PAST_EVENTS, false],
  ['recent', eventDays - 1, false],
  ['queued', PAST_EVENTS, true],
  ['resendable', PAST_EVENTS, false], // its delivery failed within the delivery retention: a resend renders it
  ['delivered', PAST_EVENTS, false], // its delivery succeeded: nothing renders it again
  ['freed', PAST_DELIVERIES, false], // its failed delivery is past the delivery retention and goes first
  ['late', PAST_EVENTS, false], // the relay started its delivery late, an hour ago: it may still fail and be resent
];
/** Deliveries, named by `workflow_id`: [label, status, days since created, days since updated, event label]. */
const DELIVERIES: [string, string, number, number, string | null][] = [
  ['history', 'delivered', 0, 0, null],
  ['resendable', 'failed', PAST_EVENTS, PAST_EVENTS - 1, 'resendable'],
  ['delivered', 'delivered', PAST_EVENTS, PAST_EVENTS, 'delivered'],
  ['expired', 'failed', PAST_DELIVERIES, PAST_DELIVERIES, 'freed'],
  ['resent', 'retrying', PAST_DELIVERIES, 0.04, null], // an old delivery resent an hour ago
  ['late', 'retrying', 0.04, 0.04, 'late'],
];
/** What every run leaves of each shop's rows. */
const LEFT = {
  idempotency: ['live'],
  sessions: ['live'],
  attempts: ['kept'],
  windows: ['now'],
  events: ['late', 'queued', 'recent', 'resendable'],
  deliveries: ['delivered', 'history', 'late', 'resendable', 'resent'],
};

/** For each shop: rows of each kind past their use and live ones, written as the owner with backdated times. */
async function seedRows(fixture: ShopFixture): Promise<void> {
  const { applicationId } = await fixture.newKey(['pos.orders.read']);
  const { flowId } = await fixture.newFlow({ name: 'F', eventType: 'order.created', url: 'https://hooks.example.com/x' });
  const eventIds = new Map(EVENTS.map(([label]) => [label, newEventId()]));
  await db.admin.begin(async (tx) => {
    const ago = (days: number) => tx`now() - ${days} * interval '1 day'`;
    await tx`
      insert into idempotency_keys (shop_id, application_id, idempotency_key, request_hash, state, created_at) values
        (${fixture.shopId}, ${applicationId}, 'expired', 'h', 'done', now() - interval '25 hours'),
        (${fixture.shopId}, ${applicationId}, 'live', 'h', 'done', now() - interval '23 hours')`;
    await tx`
      insert into admin_sessions (token_hash, shop_id, user_id, csrf_token, expires_at) values
        (${`expired-${fixture.shopId}`}, ${fixture.shopId}, ${fixture.ownerId}, 'c', now() - interval '1 minute'),
        (${`live-${fixture.shopId}`}, ${fixture.shopId}, ${fixture.ownerId}, 'c', now() + interval '1 hour')`;
    for (const [label, days, queued] of EVENTS) {
      const id = eventIds.get(label)!;
      await tx`
        insert into events (id, shop_id, type, resource_id, data, created_at)
        values (${id}, ${fixture.shopId}, 'order.created', ${randomUUID()}, ${tx.json({ label })}, ${ago(days)})`;
      // The insert queued it (events_enqueue); the relay has taken all but the queued one.
      if (!queued) await tx`delete from event_queue where event_id = ${id}`;
    }
    for (const [label, status, created, updated, event] of DELIVERIES) {
      await tx`
        insert into deliveries (delivery_id, shop_id, flow_id, event_id, event_type, workflow_id, status, created_at, updated_at)
        values (${`msg_${randomUUID()}`}, ${fixture.shopId}, ${flowId}, ${event ? eventIds.get(event)! : newEventId()}, 'order.created',
                ${label}, ${status}, ${ago(created)}, ${ago(updated)})`;
    }
    await tx`
      insert into delivery_attempts (shop_id, delivery_id, attempted_at, duration_ms, verdict, response_excerpt)
      select ${fixture.shopId}, delivery_id, attempted_at, 5, verdict, excerpt
      from deliveries, (values (${ago(PAST_DELIVERIES)}, 'retry', 'old'), (${ago(2)}, 'delivered', 'kept')) as a (attempted_at, verdict, excerpt)
      where shop_id = ${fixture.shopId} and workflow_id = 'history'`;
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
      array(select split_part(scope, ':', 1) from rate_limit_counters where scope like ${`%:${shopId}`} order by 1) as windows,
      array(select data->>'label' from events where shop_id = ${shopId} and data ? 'label' order by 1) as events,
      array(select workflow_id from deliveries where shop_id = ${shopId} order by 1) as deliveries`;
  return row;
};

beforeAll(async () => {
  other = await createShopFixture(db.app);
  await Promise.all([seedRows(shop), seedRows(other)]);
});

describe('housekeeping', () => {
  it('keeps deliveries for DELIVERY_RETENTION_DAYS, or its earlier name DELIVERY_ATTEMPT_RETENTION_DAYS, and events for EVENT_RETENTION_DAYS', () => {
    const retention = (env: Record<string, string>) => loadSettings({ NODE_ENV: 'test', ...env }).retention;
    expect(retention({})).toEqual(DEFAULT_RETENTION);
    expect(retention({ DELIVERY_ATTEMPT_RETENTION_DAYS: '14' })).toEqual({ deliveryDays: 14, eventDays: 30 });
    expect(retention({ DELIVERY_RETENTION_DAYS: '60', DELIVERY_ATTEMPT_RETENTION_DAYS: '14', EVENT_RETENTION_DAYS: '7' })).toEqual({
      deliveryDays: 60,
      eventDays: 7,
    });
    expect(() => retention({ EVENT_RETENTION_DAYS: '0' })).toThrow(/EVENT_RETENTION_DAYS/);
  });

  it('lets no other transaction see or delete another shop’s expired rows', async () => {
    const fromShop = await withShop(db.app, shop.shopId, (tx) => tx`delete from admin_sessions where shop_id = ${other.shopId}`);
    const fromNoShop = await db.app`delete from idempotency_keys where created_at < now() - interval '24 hours'`;
    const eventsFromNoShop = await db.app`delete from events where created_at < now() - interval '1 day'`;
    expect([fromShop.count, fromNoShop.count, eventsFromNoShop.count]).toEqual([0, 0, 0]);
  });

  it('shows a housekeeping transaction only events a day old that neither the queue nor a delivery needs, and every delivery', async () => {
    const visible = await db.app.begin(async (tx) => {
      await tx`select set_config('app.housekeeping', 'on', true)`;
      return tx<{ events: string[]; deliveries: string[] }[]>`
        select array(select data->>'label' from events where shop_id = ${shop.shopId} order by 1) as events,
               array(select workflow_id from deliveries where shop_id = ${shop.shopId} order by 1) as deliveries`;
    });
    expect(visible).toEqual([
      { events: ['delivered', 'old', 'recent'], deliveries: ['delivered', 'expired', 'history', 'late', 'resendable', 'resent'] },
    ]);
  });

  it('is a Temporal Schedule, registered idempotently, whose run purges what is past its use in every shop and leaves live rows', async () => {
    const scheduleId = `housekeeping-${randomUUID()}`;
    // A schedule as an earlier version registered it, with the retention as the workflow's input.
    await temporal.client.schedule.create({
      scheduleId,
      spec: { intervals: [{ every: '1 hour' }] },
      action: {
        type: 'startWorkflow',
        workflowType: 'housekeepingWorkflow',
        workflowId: scheduleId,
        taskQueue: temporal.taskQueue,
        args: [{ attemptRetentionDays: 7 }],
      },
      policies: { overlap: ScheduleOverlapPolicy.SKIP },
    });
    // A worker start brings it to the current spec, without the input.
    await ensureHousekeepingSchedule(temporal.client, { taskQueue: temporal.taskQueue, scheduleId });
    const handle = temporal.client.schedule.getHandle(scheduleId);
    try {
      const described = await handle.describe();
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'housekeepingWorkflow', args: [] });
      expect(described.spec.intervals).toHaveLength(1);

      await handle.trigger();
      let workflowId: string | undefined;
      for (let tries = 0; tries < 100 && !workflowId; tries += 1) {
        workflowId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
        if (!workflowId) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const result = (await temporal.client.workflow.getHandle(workflowId!).result()) as HousekeepingResult;
      const least = { idempotencyKeys: 2, adminSessions: 2, deliveryAttempts: 2, rateLimitWindows: 2, deliveries: 2, events: 6 };
      for (const [kind, count] of Object.entries(least)) expect(result[kind as keyof typeof least]).toBeGreaterThanOrEqual(count);
      for (const fixture of [shop, other]) expect(await remaining(fixture.shopId)).toEqual(LEFT);
    } finally {
      await handle.delete();
    }
  });

  it('takes its bounds from the worker’s settings: a start forged with attemptRetentionDays 0 purges only what the retention would', async () => {
    const third = await createShopFixture(db.app);
    await seedRows(third);
    // As an attacker on the Temporal frontend would: the workflow type by name, on the worker's queue, any input.
    await temporal.client.workflow.execute('housekeepingWorkflow', {
      taskQueue: temporal.taskQueue,
      workflowId: `forged-${randomUUID()}`,
      args: [{ attemptRetentionDays: 0 }],
    });
    expect(await remaining(third.shopId)).toEqual(LEFT);
  });
});
