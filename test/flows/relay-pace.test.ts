import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { testEnv } from '../support/environment.js';
import { useSuite } from '../support/suite.js';
import { testTemporalClient } from '../support/temporal.js';
import { writeEvent } from '../../domain/events/outbox.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { OutboxRelay } from '../../workflows/deliveries/delivery-relay.js';
import { ShopPace } from '../../workflows/deliveries/shop-pace.js';
import { machineBusyReader } from '../../workers/setup/machine-load.js';

/**
 * Each shop's pace through the relay while other shops have events too (ShopPace), on the real
 * outbox: claims counted, the clock and the machine's load set by the test.
 */
const { db, temporal } = useSuite({ worker: true });
let connection: Connection;

beforeAll(async () => {
  connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
});
afterAll(async () => {
  await connection?.close();
});

async function backlog(shopId: string, count: number): Promise<void> {
  await withShop(db.app, shopId, async (tx) => {
    for (let index = 0; index < count; index += 1)
      await writeEvent(tx, { shopId, type: 'customer.created', resourceId: randomUUID(), data: { id: randomUUID() } });
  });
}

/** A shop's events the relay has taken off the queue. */
const taken = async (shopId: string) =>
  (
    await db.admin<{ count: number }[]>`
      select count(*)::int as count from events e where e.shop_id = ${shopId}
        and not exists (select 1 from event_queue q where q.event_id = e.id)`
  )[0]!.count;

const relayPacedBy = (pace: ShopPace) =>
  new OutboxRelay({ sql: db.app, deliveries: { ...temporal.deliveries, client: testTemporalClient(connection) }, pace });

describe('the relay’s pace of each shop', () => {
  it('paces a shop with a backlog while another shop has events, and leaves a shop alone unpaced and owing nothing', async () => {
    let clock = 1_000_000;
    const relay = relayPacedBy(new ShopPace(25, 50, { now: () => clock }));

    // Alone, a backlog takes whole batches, however many.
    const alone = await createShopFixture(db.app);
    await backlog(alone.shopId, 300);
    for (let batch = 0; batch < 3; batch++) expect(await relay.relayBatch(100)).toBe(100);

    // Beside a shop with events lately (none queued now): a newcomer's backlog starts with one event,
    // not the batch, then waits for its tokens; another newcomer's first event goes out at once.
    const [noisy, quiet] = [await createShopFixture(db.app), await createShopFixture(db.app)];
    await backlog(noisy.shopId, 300);
    expect(await relay.relayBatch(100)).toBe(1);
    expect(await relay.relayBatch(100)).toBe(0);
    await backlog(quiet.shopId, 1);
    expect(await relay.relayBatch(100)).toBe(1);
    expect([await taken(noisy.shopId), await taken(quiet.shopId)]).toEqual([1, 1]);
    // A second later: 25 tokens back, and the backlog is served again, never past its tokens. The shop
    // that had the relay to itself owes nothing for its 300 (no debt of 250): its next event goes too.
    clock += 1_000;
    await backlog(alone.shopId, 1);
    expect(await relay.relayBatch(20)).toBe(11);
    expect([await taken(noisy.shopId), await taken(alone.shopId)]).toEqual([11, 301]);
    expect(await relay.relayBatch(20)).toBe(15);
    // Out of tokens again: held until they come back.
    expect(await relay.relayBatch(20)).toBe(0);
    expect(await taken(noisy.shopId)).toBe(26);
    // Still beside the other shop half a minute after its last event (a shop with an event now and
    // then counts): paced, its bucket full again at its burst.
    clock += 30_000;
    expect(await relay.relayBatch(100)).toBe(50);
    // Back after a quiet minute beside the backlog, a shop begins again from one token.
    clock += 31_000;
    await backlog(quiet.shopId, 2);
    expect(await relay.relayBatch(100)).toBe(51);
    expect(await taken(quiet.shopId)).toBe(2);
    await db.admin`delete from event_queue`;
  });

  it('paces a backlog from one event a second up while the machine is calm, halves it while busy, and never holds a shop that keeps up', async () => {
    let clock = 2_000_000;
    let busy = 0.3;
    const pace = new ShopPace(10, 10, { now: () => clock, machineBusy: () => busy });
    const relay = relayPacedBy(pace);
    const [noisy, steady] = [await createShopFixture(db.app), await createShopFixture(db.app)];
    await backlog(steady.shopId, 1);
    expect(await relay.relayBatch(100)).toBe(1);
    // Events that have waited a minute in the outbox: a backlog. It begins at one event a second.
    await backlog(noisy.shopId, 100);
    await db.admin`update event_queue set created_at = created_at - interval '1 minute' where shop_id = ${noisy.shopId}`;
    expect(await relay.relayBatch(100)).toBe(1);
    expect(pace.backlogPerSecond).toBe(1);

    // Calm: one event a second more each second, up to the shop's pace of 10 and no higher; each
    // second's claim takes that second's pace.
    const claims: number[] = [];
    const paces: number[] = [];
    const seconds = async (count: number) => {
      for (let second = 0; second < count; second++) {
        clock += 1_000;
        claims.push(await relay.relayBatch(100));
        paces.push(pace.backlogPerSecond);
      }
    };
    await seconds(7);
    expect(paces).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(claims).toEqual([2, 3, 4, 5, 6, 7, 8]);
    // Between 35 % and half busy the pace holds: the other shops keep half the cores for their deliveries.
    busy = 0.45;
    claims.length = paces.length = 0;
    await seconds(2);
    expect(paces).toEqual([8, 8]);
    busy = 0.3;
    await seconds(3);
    expect(paces).toEqual([8, 8, 9, 10, 10]);

    // Busy (over half the cores): halved each second, down to one a second, what a shop may take at once with it.
    busy = 0.55;
    claims.length = paces.length = 0;
    await seconds(3);
    expect(paces).toEqual([5, 2.5, 1.25]);
    expect(claims).toEqual([5, 2, 1]);
    // The steady shop's events, fresh, are claimed whole at its own pace, the machine as busy.
    await backlog(steady.shopId, 8);
    expect(await relay.relayBatch(100)).toBe(8);
    expect([await taken(noisy.shopId), await taken(steady.shopId)]).toEqual([89, 9]);
    claims.length = paces.length = 0;
    await seconds(2);
    expect(paces).toEqual([1, 1]);
    expect(claims).toEqual([1, 1]);
    await db.admin`delete from event_queue`;
  });

  it("reads the machine's busy share: a core kept busy shows", () => {
    const read = machineBusyReader();
    const until = performance.now() + 300;
    while (performance.now() < until);
    const busy = read();
    expect(busy).toBeGreaterThanOrEqual(0.8 / cpus().length);
    expect(busy).toBeLessThanOrEqual(1);
  });
});
