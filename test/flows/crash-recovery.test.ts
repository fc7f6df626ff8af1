import { randomUUID } from 'node:crypto';
import { Connection, type Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { testEnv } from '../support/environment.js';
import { useSuite } from '../support/suite.js';
import { envelopeId } from '../support/deliveries.js';
import type { ReceivedRequest } from '../../simulators/webhook-receiver.js';
import { deliveryIdFor } from '../../domain/flows/flows.js';
import { CLAIM_SECONDS, writeEvent } from '../../domain/events/outbox.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { outputMatches, ProcessGroup } from '../../scripts/processes.js';
import { housekeepingScheduleId, removeHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import { processEnv } from '../support/processes.js';
import { testTemporalClient } from '../support/temporal.js';

/**
 * The real worker and relay as child processes, killed with SIGKILL in the middle of a run of
 * events against a slow receiver, then started again: nothing is lost (at least once), and every
 * retry of a delivery carries the delivery's one `webhook-id`.
 */

const EVENTS = 500;
const BATCH = 50;
/** Deliveries received before the crash. */
const CRASH_AFTER = 100;

const { db, receiver, shop } = useSuite({ shop: true, receiver: true });
let connection: Connection;
let client: Client;
const groups: ProcessGroup[] = [];
const unexpectedExits: string[] = [];
const taskQueue = `crash-test-${randomUUID()}`;

beforeAll(async () => {
  connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  client = testTemporalClient(connection);
});
afterAll(async () => {
  await Promise.all(groups.map((group) => group.stopAll(5_000)));
  if (client) await removeHousekeepingSchedule(client, taskQueue);
  await connection?.close();
});

/** The real entry points, exactly as `npm run dev` runs them, on this suite's database and task queue. */
async function startWorkerAndRelay(): Promise<ProcessGroup> {
  const group = new ProcessGroup((name, code) => unexpectedExits.push(`${name} (code ${code})`));
  groups.push(group);
  const env = processEnv(db.appUrl, taskQueue);
  const worker = group.startTs('worker', 'workers/worker.ts', env);
  const relay = group.startTs('relay', 'workers/relay.ts', env);
  await Promise.all([
    outputMatches(worker, /worker polling task queue/, 60_000, 'worker'),
    outputMatches(relay, /outbox relay started/, 30_000, 'relay'),
  ]);
  return group;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(250);
  }
}

describe('crash recovery of the worker and the relay', () => {
  it(
    'delivers every event at least once after both are SIGKILLed mid-run, each delivery keeping its one webhook-id',
    { timeout: 200_000 },
    async () => {
      const started = Date.now();
      const inbox = randomUUID();
      // A slow receiver: every answer is a 200 after 200–400 ms, so many attempts are in flight at the crash.
      receiver.respondWith(
        inbox,
        Array.from({ length: 4 * EVENTS }, () => ({ status: 200, body: '{"ok":true}', delayMs: 200 + Math.floor(Math.random() * 201) })),
      );
      const { flowId, secret } = await shop.newFlow({
        name: 'Crash test',
        eventType: 'product.updated',
        url: receiver.url(inbox),
        state: 'on',
      });

      let group = await startWorkerAndRelay();
      // The worker registers its own queue's housekeeping schedule, never another run's.
      const schedule = await client.schedule.getHandle(housekeepingScheduleId(taskQueue)).describe();
      expect(schedule.action).toMatchObject({ type: 'startWorkflow', taskQueue });

      // 500 events, 50 per batch (one transaction each) over a couple of seconds.
      const sent: string[] = [];
      const writing = (async () => {
        for (let batch = 0; batch < EVENTS / BATCH; batch += 1) {
          const ids = await withShop(db.app, shop.shopId, async (tx) => {
            const written: string[] = [];
            for (let index = 0; index < BATCH; index += 1) {
              const number = batch * BATCH + index;
              written.push(
                await writeEvent(tx, {
                  shopId: shop.shopId,
                  type: 'product.updated',
                  resourceId: randomUUID(),
                  data: { id: randomUUID(), name: `Sản phẩm ${number}` },
                  changes: { fields: ['name'] },
                }),
              );
            }
            return written;
          });
          sent.push(...ids);
          await sleep(200);
        }
      })();

      // The crash: both processes SIGKILLed (whole process groups) while deliveries are in flight.
      await receiver.waitFor(inbox, CRASH_AFTER, 60_000);
      await Promise.all([group.kill('worker', 'SIGKILL'), group.kill('relay', 'SIGKILL')]);
      const atCrash = receiver.received(inbox).length;
      const distinctAtCrash = new Set(receiver.received(inbox).map(envelopeId)).size;
      const crashedAt = Date.now();
      await writing;
      // The crash came mid-run: some deliveries had arrived, and not every event had.
      expect(atCrash).toBeGreaterThan(0);
      expect(atCrash).toBeLessThan(EVENTS);
      expect(distinctAtCrash).toBeGreaterThan(0);
      expect(distinctAtCrash).toBeLessThan(EVENTS);
      await sleep(1_000);
      group = await startWorkerAndRelay();
      const restartedAfterMs = Date.now() - crashedAt;

      // At least once: every event arrives. Attempts killed in flight are retried after their
      // 30 s start-to-close time-out plus the first retry wait (5 s ± 20 %).
      const distinct = () => new Set(receiver.received(inbox).map(envelopeId));
      // One reading of the inbox per look: the receiver answers on this process's event loop.
      await until(
        'every event received',
        () => {
          const received = distinct();
          return sent.every((id) => received.has(id));
        },
        120_000,
      );
      const allReceivedAfterMs = Date.now() - started;
      // Then every delivery workflow is over, so late retries of attempts already received are counted too.
      const query = `WorkflowType = 'deliveryWorkflow' AND TaskQueue = '${taskQueue}'`;
      await until(
        'every delivery workflow closed',
        async () =>
          (await client.workflow.count(query)).count === EVENTS &&
          (await client.workflow.count(`${query} AND ExecutionStatus = 'Running'`)).count === 0,
        60_000,
      );
      expect((await client.workflow.count(`${query} AND DeliveryStatus = 'delivered'`)).count).toBe(EVENTS);

      const requests = receiver.received(inbox);
      const byEvent = new Map<string, ReceivedRequest[]>();
      for (const request of requests) byEvent.set(envelopeId(request), [...(byEvent.get(envelopeId(request)) ?? []), request]);
      const duplicates = requests.length - byEvent.size;
      console.log(
        `crash test: events sent ${sent.length}, requests received ${requests.length}, distinct events received ${byEvent.size}, ` +
          `duplicates ${duplicates} (received before the crash ${atCrash} (${distinctAtCrash} distinct), restarted after ${restartedAfterMs} ms, ` +
          `all received after ${(allReceivedAfterMs / 1000).toFixed(1)} s, total ${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );

      expect(unexpectedExits).toEqual([]);
      expect(sent).toHaveLength(EVENTS);
      expect(new Set(sent).size).toBe(EVENTS);
      // Nothing but these events arrived, and every one of them did.
      expect([...byEvent.keys()].sort()).toEqual([...sent].sort());
      // Every retry of a delivery carries the delivery's one webhook-id.
      for (const [eventId, attempts] of byEvent) {
        const ids = new Set(attempts.map((request) => request.headers['webhook-id']));
        expect({ eventId, ids: [...ids] }).toEqual({ eventId, ids: [deliveryIdFor(flowId, eventId)] });
      }
      // Signatures verify: every retried delivery's attempts, and a sample of the others.
      const retried = [...byEvent.values()].filter((attempts) => attempts.length > 1).flat();
      const sample = [...retried, ...requests.filter((_, index) => index % 25 === 0)];
      const webhook = new Webhook(secret);
      for (const request of sample)
        expect(webhook.verify(request.body, request.headers as Record<string, string>)).toMatchObject({ id: envelopeId(request) });
      // The queue empties: every event's deliveries were started. An event the killed relay had claimed
      // and started but not yet taken off waits for its claim to run out (CLAIM_SECONDS), then a relay
      // finds its deliveries "already started" and takes it off.
      await until(
        'the event queue empty',
        async () => (await db.admin<{ count: number }[]>`select count(*)::int as count from event_queue`)[0]!.count === 0,
        (CLAIM_SECONDS + 30) * 1_000,
      );
    },
  );
});
