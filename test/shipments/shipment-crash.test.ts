import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { outputMatches, ProcessGroup } from '../../scripts/processes.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { removeHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import { pushShipment, type ShipmentStarter } from '../../workflows/shipments/shipment-starter.js';
import { trackingWorkflowId } from '../../workflows/shipments/shipment-workflows.js';
import { testEnv } from '../support/environment.js';
import { loadSettings } from '../../config/settings.js';
import { useSuite } from '../support/suite.js';
import { connectShipping, preparedPush, readyOrder, SHIPPING_PERMISSIONS, type ShippingShop } from './shipment-fixtures.js';
import { freeLoopbackPort } from '../../telemetry/metrics-server.js';
import { testTemporalClient } from '../support/temporal.js';

/**
 * The real worker as a child process, SIGKILLed after the carrier accepted a push and before the
 * shipment row learnt it: started again, the push finds the carrier's order by our id. One carrier
 * order, the shipment `pending` with its tracking code. The same for the real API process, whose own
 * worker runs the pushes it starts (docs/behaviour/shipments.md): the stand-alone worker takes the push over.
 */
const { db, shop } = useSuite({ shop: true });
const taskQueue = `shipment-crash-${randomUUID()}`;
const unexpectedExits: string[] = [];
const groups: ProcessGroup[] = [];
let connection: Connection;
let starter: ShipmentStarter;
let carrier: CarrierB;
let shipping: ShippingShop;

beforeAll(async () => {
  connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  // The worker child reads the development WORKFLOW_SEAL_KEY: the starter seals with the same.
  starter = {
    client: testTemporalClient(connection),
    taskQueue,
    waitMs: 150_000,
    pollEveryMs: 600_000,
    sealKey: loadSettings().WORKFLOW_SEAL_KEY,
  };
  carrier = await CarrierB.start({ callbackRetry: { attempts: 1 } });
  // Callbacks go nowhere here: the push is what is tested.
  shipping = await connectShipping(db, shop, { carrier_b: carrier }, 'http://127.0.0.1:9');
});
afterAll(async () => {
  await Promise.all(groups.map((group) => group.stopAll(5_000)));
  if (starter) await removeHousekeepingSchedule(starter.client, taskQueue);
  await Promise.all([connection?.close(), carrier?.close()]);
});

/** What the real processes run with here: this suite's database and task queue. */
const processEnv = () => ({
  APP_DATABASE_URL: db.appUrl,
  TEMPORAL_ADDRESS: testEnv('TEMPORAL_ADDRESS'),
  TEMPORAL_TASK_QUEUE: taskQueue,
  OUTBOUND_ALLOW_LOOPBACK: 'true',
  NODE_ENV: 'test',
  LOG_LEVEL: 'warn',
});

/** The real worker entry point, as `npm run dev` runs it, on this suite's database and task queue. */
async function startWorker(): Promise<ProcessGroup> {
  const group = new ProcessGroup((name, code) => unexpectedExits.push(`${name} (code ${code})`));
  groups.push(group);
  const worker = group.startTs('worker', 'workers/worker.ts', processEnv());
  await outputMatches(worker, /worker polling task queue/, 60_000, 'worker');
  return group;
}

describe('a worker killed in the middle of a push', () => {
  it(
    'after the carrier accepted and before the row was updated: exactly one carrier order, pending with its tracking code',
    { timeout: 180_000 },
    async () => {
      const group = await startWorker();
      // The carrier makes the order at once and answers 60 s later: the worker dies in between.
      carrier.faults.inject('create', { type: 'slow-after-accept', delayMs: 60_000 });
      const push = await preparedPush(db, shop, shipping.warehouseId, shipping.connections.carrier_b!);
      const { orderId } = push;
      const result = pushShipment(starter, push.keys);
      const carrierOrders = () => carrier.orders().filter((order) => order.clientRef === push.shipmentId);
      await vi.waitFor(() => expect(carrierOrders()).toHaveLength(1), { timeout: 30_000, interval: 20 });
      await group.kill('worker', 'SIGKILL');
      const [row] = await db.admin<{ trackingCode: string | null }[]>`select tracking_code from shipments where id = ${push.shipmentId}`;
      expect(row?.trackingCode).toBeNull();

      await startWorker();
      const shipment = await result;
      expect(carrierOrders()).toHaveLength(1);
      expect(shipment).toMatchObject({ id: push.shipmentId, status: 'pending', trackingCode: carrierOrders()[0]!.code });
      const [stored] = await db.admin<{ status: string; trackingCode: string }[]>`
      select status, tracking_code from shipments where id = ${push.shipmentId}`;
      expect(stored).toEqual({ status: 'pending', trackingCode: carrierOrders()[0]!.code });
      const [order] = await db.admin<{ status: string }[]>`select status from orders where id = ${orderId}`;
      expect(order?.status).toBe('shipped');
      expect(unexpectedExits).toEqual([]);
    },
  );
});

describe('an API process killed between the carrier’s create and its answer', () => {
  it(
    'the stand-alone worker takes the push over: exactly one carrier order, pending with its tracking code, the order shipped',
    { timeout: 180_000 },
    async () => {
      const { orderId } = await readyOrder(db, shop, shipping.warehouseId);
      const workers = await startWorker();
      const port = await freeLoopbackPort();
      const apiUrl = `http://127.0.0.1:${port}`;
      const api = workers.startTs('api', 'api/server.ts', { ...processEnv(), PORT: String(port), LOG_LEVEL: 'info' });
      await outputMatches(api, /shipments worker polling task queue/, 60_000, 'api');
      const { key } = await shop.newKey(SHIPPING_PERMISSIONS, 'Crash');
      carrier.faults.inject('create', { type: 'slow-after-accept', delayMs: 60_000 });
      const answer = fetch(`${apiUrl}/api/open/v1/shipments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ orderId, connectionId: shipping.connections.carrier_b }),
      }).catch((error: unknown) => error);
      const [created] = await vi.waitFor(
        async () => {
          const rows = await db.admin<{ id: string }[]>`select id from shipments where order_id = ${orderId}`;
          const ordered = carrier.orders().filter((order) => order.clientRef === rows[0]?.id);
          expect(ordered).toHaveLength(1);
          return rows;
        },
        { timeout: 30_000, interval: 20 },
      );
      await workers.kill('api', 'SIGKILL');
      expect(await answer).toBeInstanceOf(Error); // the request died with the API
      const carrierOrders = () => carrier.orders().filter((order) => order.clientRef === created!.id);

      // The task the API held times out, and the worker runs the push again: the carrier's order, by our id.
      const stored = await vi.waitFor(
        async () => {
          const [row] = await db.admin<{ status: string; trackingCode: string | null }[]>`
            select status, tracking_code from shipments where id = ${created!.id}`;
          expect(row?.trackingCode).toBeTruthy();
          return row!;
        },
        { timeout: 90_000, interval: 200 },
      );
      expect(carrierOrders()).toHaveLength(1);
      expect(stored).toEqual({ status: 'pending', trackingCode: carrierOrders()[0]!.code });
      const [order] = await db.admin<{ status: string }[]>`select status from orders where id = ${orderId}`;
      expect(order?.status).toBe('shipped');
      // The API's worker held the run's first task (eager) and died with it: the task timed out.
      const events = (await starter.client.workflow.getHandle(trackingWorkflowId(created!.id)).fetchHistory()).events ?? [];
      expect(events.filter((event) => event.workflowTaskTimedOutEventAttributes)).toHaveLength(1);
      expect(events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);
      expect(unexpectedExits).toEqual([]);
    },
  );
});
