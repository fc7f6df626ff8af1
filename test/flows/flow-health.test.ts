import { beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulidx';
import { adminLogIn, ADMIN_PASSWORD, logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { addMember } from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { recordAttempt, type AttemptRecord } from '../../domain/flows/index.js';
import { createHousekeepingActivities } from '../../activities/housekeeping/housekeeping.js';
import { DEFAULT_RETENTION } from '../../config/settings.js';

/**
 * Issue 32, health at a glance, on the admin API: the figures of a flow's recorded attempts per hour,
 * over 24 hours and 7 days, the same whether an hour is read from the attempts or from its sum, and
 * another shop's flow unseen.
 */
const { db, api, shop, receiver } = useSuite({ api: true, shop: true, receiver: true });
let admin: AdminRequest;
let viewer: AdminRequest;

const HOUR = 3_600_000;
const hourOf = (at: number) => new Date(Math.floor(at / HOUR) * HOUR).toISOString();

interface Recorded {
  flowId: string;
  deliveryId: string;
  at: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  testRun?: boolean;
}

/** Attempts kept as the send activity keeps them (recordAttempt), at the times given. */
async function record(shopId: string, attempts: Recorded[]): Promise<void> {
  await withShop(db.app, shopId, async (tx) => {
    for (const attempt of attempts) {
      const delivered = attempt.statusCode !== null && attempt.statusCode < 300;
      const ref = {
        shopId,
        flowId: attempt.flowId,
        eventId: `evt_${ulid()}`,
        eventType: 'order.created',
        deliveryId: attempt.deliveryId,
        workflowId: `delivery:${attempt.flowId}:${attempt.deliveryId}`,
        testRun: attempt.testRun ?? false,
      };
      const kept: AttemptRecord = {
        attemptedAt: new Date(attempt.at).toISOString(),
        statusCode: attempt.statusCode,
        durationMs: attempt.durationMs,
        responseExcerpt: '',
        error: attempt.error,
        verdict: delivered ? 'delivered' : 'retry',
      };
      await recordAttempt(tx, ref, kept);
      // Recorded as it happens, a delivery's row is written with its first attempt: created then.
      await tx`update deliveries set created_at = least(created_at, ${kept.attemptedAt}) where delivery_id = ${ref.deliveryId}`;
    }
  });
}

const newDelivery = () => `msg_${ulid()}`;

async function newFlow(as: AdminRequest, name: string): Promise<string> {
  const response = await as('POST', '/flows', { name, eventType: 'order.created', url: receiver.url(name) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { flow: { id: string } }).flow.id;
}

interface Health {
  hours: { hour: string; deliveries: number; attempts: number; succeeded: number; p50Ms: number | null; p99Ms: number | null }[];
  last24Hours: { attempts: number; succeeded: number; successRate: number | null; p50Ms: number | null; p99Ms: number | null };
  last7Days: { attempts: number; succeeded: number; successRate: number | null; p50Ms: number | null; p99Ms: number | null };
  lastFailure: { at: string; statusCode: number | null; error: string | null } | null;
  latencyErrorPercent: number;
}

async function health(as: AdminRequest, flowId: string): Promise<Health> {
  const response = await as('GET', `/flows/${flowId}/health`);
  expect(response.status).toBe(200);
  return (await response.json()) as Health;
}

/** The exact nearest-rank percentile. */
function exactPercentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(p * sorted.length) - 1]!;
}

function expectClose(estimate: number | null, exact: number, percent: number): void {
  expect(estimate).not.toBeNull();
  expect(Math.abs(estimate! - exact)).toBeLessThanOrEqual((exact * percent) / 100);
}

beforeAll(async () => {
  ({ admin, viewer } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
});

describe("a flow's health", () => {
  const now = Date.now();
  let busy: string;
  let quiet: string;
  const attempts: Recorded[] = [];
  // 300 answered attempts three hours ago with spread answer times (2 ms to ~9 s), a tenth of them refused.
  const spread = Array.from({ length: 300 }, (_, index) => Math.round(2 + (index * 37) ** 1.35) % 9000);

  beforeAll(async () => {
    busy = await newFlow(admin, 'Đơn sang ERP');
    quiet = await newFlow(admin, 'Kho yên ắng');
    const threeHoursAgo = Math.floor(now / HOUR) * HOUR - 3 * HOUR;
    spread.forEach((durationMs, index) => {
      const failed = index % 10 === 0;
      attempts.push({
        flowId: busy,
        deliveryId: newDelivery(),
        at: threeHoursAgo + index * 1000,
        statusCode: failed ? 503 : 200,
        durationMs,
        error: null,
      });
    });
    // One delivery retried over two hours: a delivery of the first, an attempt in each.
    const retried = newDelivery();
    attempts.push(
      { flowId: busy, deliveryId: retried, at: threeHoursAgo - HOUR + 60_000, statusCode: null, durationMs: 15_000, error: 'timed out' },
      { flowId: busy, deliveryId: retried, at: threeHoursAgo + 400_000, statusCode: 200, durationMs: 80, error: null },
    );
    // 30 hours ago: in the 7 days, not in the 24 hours; 8 days ago: in neither.
    attempts.push(
      { flowId: busy, deliveryId: newDelivery(), at: now - 30 * HOUR, statusCode: 200, durationMs: 120, error: null },
      { flowId: busy, deliveryId: newDelivery(), at: now - 30 * HOUR + 1000, statusCode: 500, durationMs: 40, error: null },
      { flowId: busy, deliveryId: newDelivery(), at: now - 8 * 24 * HOUR, statusCode: 500, durationMs: 40, error: null },
    );
    // The open hour, read from the attempts: the latest failure, a connection refused.
    attempts.push(
      { flowId: busy, deliveryId: newDelivery(), at: now - 2000, statusCode: 200, durationMs: 95, error: null },
      {
        flowId: busy,
        deliveryId: newDelivery(),
        at: now - 1000,
        statusCode: null,
        durationMs: 3,
        error: 'the receiver refused the connection',
      },
    );
    // A test-run is no traffic of the flow; the quiet flow has one attempt.
    attempts.push(
      { flowId: busy, deliveryId: newDelivery(), at: now - 500, statusCode: 418, durationMs: 5, error: null, testRun: true },
      { flowId: quiet, deliveryId: newDelivery(), at: now - 5 * HOUR, statusCode: 204, durationMs: 30, error: null },
    );
    await record(shop.shopId, attempts);
  });

  /** Whether it is its delivery's first attempt: a delivery counts in the hour it was created. */
  const firstAttempt = (attempt: Recorded) => attempts.every((other) => other.deliveryId !== attempt.deliveryId || other.at >= attempt.at);
  const counted = (flowId: string, since: number) =>
    attempts.filter((attempt) => attempt.flowId === flowId && !attempt.testRun && attempt.at >= since);

  it('counts deliveries, attempts and successes per hour, with p50 and p99 within the buckets’ error, and the last failure', async () => {
    const shown = await health(admin, busy);
    expect(shown.hours).toHaveLength(168);
    expect(shown.hours.at(-1)!.hour).toBe(hourOf(now));
    const firstHour = Date.parse(shown.hours[0]!.hour);
    for (const hour of shown.hours) {
      const start = Date.parse(hour.hour);
      const inHour = counted(busy, start).filter((attempt) => attempt.at < start + HOUR);
      expect(hour, hour.hour).toMatchObject({
        attempts: inHour.length,
        succeeded: inHour.filter((attempt) => attempt.statusCode === 200).length,
        deliveries: inHour.filter((attempt) => firstAttempt(attempt)).length,
      });
    }
    const spreadHour = shown.hours.find((hour) => hour.hour === hourOf(now - 3 * HOUR))!;
    expect(spreadHour).toMatchObject({ attempts: 301, succeeded: 271, deliveries: 300 });
    const answered = counted(busy, Date.parse(spreadHour.hour))
      .filter((attempt) => attempt.at < Date.parse(spreadHour.hour) + HOUR && attempt.statusCode !== null)
      .map((attempt) => attempt.durationMs);
    expectClose(spreadHour.p50Ms, exactPercentile(answered, 0.5), shown.latencyErrorPercent);
    expectClose(spreadHour.p99Ms, exactPercentile(answered, 0.99), shown.latencyErrorPercent);
    expect(shown.latencyErrorPercent).toBe(12.5);

    const inDay = counted(busy, Date.parse(shown.hours.at(-24)!.hour));
    const inWeek = counted(busy, firstHour);
    expect(inWeek.length).toBe(inDay.length + 2);
    for (const [window, chosen] of [
      [shown.last24Hours, inDay],
      [shown.last7Days, inWeek],
    ] as const) {
      const succeeded = chosen.filter((attempt) => attempt.statusCode === 200).length;
      expect(window).toMatchObject({ attempts: chosen.length, succeeded, successRate: succeeded / chosen.length });
      const latencies = chosen.filter((attempt) => attempt.statusCode !== null).map((attempt) => attempt.durationMs);
      expectClose(window.p50Ms, exactPercentile(latencies, 0.5), shown.latencyErrorPercent);
      expectClose(window.p99Ms, exactPercentile(latencies, 0.99), shown.latencyErrorPercent);
    }
    expect(shown.lastFailure).toEqual({
      at: new Date(now - 1000).toISOString(),
      statusCode: null,
      error: 'the receiver refused the connection',
    });

    // Read again: the closed hours now come from their sums, the open one still from the attempts, with a new one in it.
    const late = { flowId: busy, deliveryId: newDelivery(), at: now - 100, statusCode: 502, durationMs: 700, error: null };
    attempts.push(late);
    await record(shop.shopId, [late]);
    const again = await health(admin, busy);
    expect(again.hours.slice(0, -1)).toEqual(shown.hours.slice(0, -1));
    expect(again.hours.at(-1)).toMatchObject({ attempts: shown.hours.at(-1)!.attempts + 1 });
    expect(again.lastFailure).toEqual({ at: new Date(late.at).toISOString(), statusCode: 502, error: null });
    expect(again.last7Days.attempts).toBe(shown.last7Days.attempts + 1);
  });

  it("is every flow's last 24 hours in the flows list: attempts per hour, the current hour last", async () => {
    const response = await viewer('GET', '/flows/health');
    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: { flowId: string; attempts: number[]; succeeded: number }[] };
    const dayStart = Math.floor(now / HOUR) * HOUR - 23 * HOUR;
    for (const flowId of [busy, quiet]) {
      const line = data.find((entry) => entry.flowId === flowId)!;
      const inDay = counted(flowId, dayStart);
      expect(line.attempts).toEqual(
        Array.from({ length: 24 }, (_, index) => inDay.filter((attempt) => hourOf(attempt.at) === hourOf(dayStart + index * HOUR)).length),
      );
      expect(line.succeeded).toBe(inDay.filter((attempt) => attempt.statusCode !== null && attempt.statusCode < 300).length);
    }
  });

  it('is read by whoever may read the deliveries; another shop sees neither the flow nor its line, and its own flows only', async () => {
    expect((await health(viewer, busy)).last7Days.attempts).toBeGreaterThan(300);
    const other = await createShopFixture(db.app);
    await addMember(db.app, other.shopId, { email: 'other@shop.test', name: 'Other', password: ADMIN_PASSWORD });
    const otherAdmin = await adminLogIn(api.baseUrl, { shop: other.slug, email: 'other@shop.test', password: ADMIN_PASSWORD });
    const response = await otherAdmin('GET', `/flows/${busy}/health`);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const own = await newFlow(otherAdmin, 'Flow của shop khác');
    await record(other.shopId, [{ flowId: own, deliveryId: newDelivery(), at: now - 10, statusCode: 200, durationMs: 10, error: null }]);
    const { data } = (await (await otherAdmin('GET', '/flows/health')).json()) as { data: { flowId: string; attempts: number[] }[] };
    expect(data).toEqual([{ flowId: own, attempts: [...Array<number>(23).fill(0), 1], succeeded: 1 }]);
    expect((await health(admin, busy)).last7Days.attempts).toBe(counted(busy, now - 167 * HOUR - (now % HOUR)).length);
    expect((await admin('GET', '/flows/00000000-0000-4000-8000-000000000000/health')).status).toBe(404);
  });

  it('adds what happened since the last sum to the hour already summed, once', async () => {
    // A shop of its own: its sums end where this test says.
    const own = await createShopFixture(db.app);
    await addMember(db.app, own.shopId, { email: 'steps@shop.test', name: 'Steps', password: ADMIN_PASSWORD });
    const ownAdmin = await adminLogIn(api.baseUrl, { shop: own.slug, email: 'steps@shop.test', password: ADMIN_PASSWORD });
    const flowId = await newFlow(ownAdmin, 'Từng bước');
    const hour = Math.floor(now / HOUR) * HOUR - 3 * HOUR;
    const at = (minute: number, statusCode: number, durationMs: number) => ({
      flowId,
      deliveryId: newDelivery(),
      at: hour + minute * 60_000,
      statusCode,
      durationMs,
      error: null,
    });
    await record(own.shopId, [at(5, 200, 100), at(10, 500, 20)]);
    const before = (await health(ownAdmin, flowId)).hours.find((shown) => shown.hour === hourOf(hour))!;
    expect(before).toMatchObject({ deliveries: 2, attempts: 2, succeeded: 1 });
    // As if the last sum had ended half-way through that hour, and the rest of it happened after.
    await withShop(db.app, own.shopId, (tx) => tx`update flow_health_rollups set rolled_up_to = ${new Date(hour + 30 * 60_000)}`);
    await record(own.shopId, [at(40, 200, 300), at(50, 503, 900), at(55, 200, 300)]);
    const after = await health(ownAdmin, flowId);
    const summed = after.hours.find((shown) => shown.hour === hourOf(hour))!;
    expect(summed).toMatchObject({ deliveries: 5, attempts: 5, succeeded: 3 });
    // Answer times 20, 100, 300, 300, 900 ms: the median 300 ms.
    expectClose(summed.p50Ms, 300, after.latencyErrorPercent);
    expect(after.lastFailure).toEqual({ at: new Date(hour + 50 * 60_000).toISOString(), statusCode: 503, error: null });
    expect((await health(ownAdmin, flowId)).hours).toEqual(after.hours);
  });

  it('is summed by the housekeeping schedule for every shop with flows, on or off, before anyone reads it', async () => {
    const [on, off] = [await createShopFixture(db.app), await createShopFixture(db.app)];
    const flows: string[] = [];
    for (const [index, fixture] of [on, off].entries()) {
      await addMember(db.app, fixture.shopId, { email: 'sums@shop.test', name: 'Sums', password: ADMIN_PASSWORD });
      const member = await adminLogIn(api.baseUrl, { shop: fixture.slug, email: 'sums@shop.test', password: ADMIN_PASSWORD });
      const state = index === 0 ? 'on' : 'off';
      const response = await member('POST', '/flows', { name: state, eventType: 'order.created', url: receiver.url(state), state });
      flows.push(((await response.json()) as { flow: { id: string } }).flow.id);
    }
    const twoHoursAgo = Math.floor(now / HOUR) * HOUR - 2 * HOUR;
    for (const [index, fixture] of [on, off].entries())
      await record(fixture.shopId, [
        { flowId: flows[index]!, deliveryId: newDelivery(), at: twoHoursAgo, statusCode: 200, durationMs: 40, error: null },
      ]);

    const pass = await createHousekeepingActivities({ sql: db.app, retention: DEFAULT_RETENTION }).rollUpFlowHealth();
    expect(pass.shops).toBeGreaterThanOrEqual(2);
    const summed = await db.admin<{ flowId: string; attempts: number }[]>`
      select flow_id, attempts from flow_health_hours where flow_id = any(${flows}::uuid[]) and hour = ${new Date(twoHoursAgo)}`;
    // The shop whose only flow is off is summed too: its first reader adds nothing.
    expect(summed).toEqual(
      expect.arrayContaining([
        { flowId: flows[0], attempts: 1 },
        { flowId: flows[1], attempts: 1 },
      ]),
    );
    expect(summed).toHaveLength(2);
  });
});
