import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ALL_PERMISSIONS } from '../../domain/access/permissions.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { prepareShipmentPush } from '../../domain/orders/index.js';
import { outputMatches, ProcessGroup } from '../../scripts/processes.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { removeHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import { pushShipment, type ShipmentStarter } from '../../workflows/shipments/shipment-starter.js';
import { testEnv } from '../support/environment.js';
import { loadSettings } from '../../config/settings.js';
import { useSuite } from '../support/suite.js';
import { connectShipping, readyOrder, type ShippingShop } from './shipment-fixtures.js';
import { testTemporalClient } from '../support/temporal.js';

/**
 * The real worker as a child process, SIGKILLed after the carrier accepted a push and before the
 * shipment row learnt it: started again, the push finds the carrier's order by our id. One carrier
 * order, the shipment `pending` with its tracking code.
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
  // The worker child reads the development DELIVERY_REQUEST_KEY: the starter seals with the same.
  starter = {
    client: testTemporalClient(connection),
    taskQueue,
    waitMs: 150_000,
    pollEveryMs: 600_000,
    sealKey: loadSettings().DELIVERY_REQUEST_KEY,
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

/** The real worker entry point, as `npm run dev` runs it, on this suite's database and task queue. */
async function startWorker(): Promise<ProcessGroup> {
  const group = new ProcessGroup((name, code) => unexpectedExits.push(`${name} (code ${code})`));
  groups.push(group);
  const worker = group.startTs('worker', 'workers/worker.ts', {
    APP_DATABASE_URL: db.appUrl,
    TEMPORAL_ADDRESS: testEnv('TEMPORAL_ADDRESS'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
  });
  await outputMatches(worker, /worker polling task queue/, 60_000, 'worker');
  return group;
}

describe('a worker killed in the middle of a push', () => {
  it(
    'after the carrier accepted and before the row was updated: exactly one carrier order, pending with its tracking code',
    { timeout: 180_000 },
    async () => {
      const { orderId } = await readyOrder(db, shop, shipping.warehouseId);
      const group = await startWorker();
      // The carrier makes the order at once and answers 60 s later: the worker dies in between.
      carrier.faults.inject('create', { type: 'slow-after-accept', delayMs: 60_000 });
      const actor = { shopId: shop.shopId, permissions: ALL_PERMISSIONS, applicationId: null };
      const connectionId = shipping.connections.carrier_b!;
      const push = await withShop(db.app, shop.shopId, (tx) => prepareShipmentPush(tx, actor, { orderId, connectionId }));
      const result = pushShipment(starter, {
        shopId: shop.shopId,
        shipmentId: push.shipmentId,
        orderId,
        carrier: push.carrier,
        connectionId,
        applicationId: null,
        request: push.request,
      });
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
