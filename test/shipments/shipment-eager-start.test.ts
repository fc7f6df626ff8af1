import { NativeConnection } from '@temporalio/worker';
import type { temporal } from '@temporalio/proto';
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createCarrierActivities,
  createPushActivities,
  createShipmentRecordActivities,
  type PushedAtCarrier,
  type ShipmentCancelInput,
  type SealedPush,
} from '../../activities/shipments/shipment-activities.js';
import { seal } from '../../domain/kernel/index.js';
import type { OpenedCarrierConnection } from '../../domain/shipments/index.js';
import { testCarrierOptions } from '../support/carriers.js';
import { testSecretsKey } from '../support/fixtures.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { API_WORKER_IDENTITY } from '../../workers/setup/shipment-worker-host.js';
import { pushShipment, ShipmentOutcomes } from '../../workflows/shipments/shipment-starter.js';

import { trackingWorkflowId as trackingWorkflowIdOf } from '../../workflows/shipments/shipment-workflows.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testEnv, TEST_WORKFLOW_SEAL_KEY } from '../support/environment.js';
import { useSuite } from '../support/suite.js';
import { testTemporalClient, testWorkerOptions } from '../support/temporal.js';
import { testOutboundPolicy } from '../support/receiver.js';
import { createShopflowWorker } from '../../workers/setup/create-worker.js';
import { connectShipping, preparedPush, readyOrder, SHIPPING_PERMISSIONS, type ShippingShop } from './shipment-fixtures.js';

/**
 * docs/behaviour/shipments.md: the API process hosts a worker on the shipments' queue, starts a push or cancel on
 * it eagerly and answers from the outcome its sink hands over; without that worker (SHIPMENT_WORKER
 * off), or when the start was not eager, the answer comes through the server as before. The run's
 * history shows which: an eager push has no update in it, and its tasks name the API's worker.
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } }, worker: { shipments: true }, shop: true });
const { db, shop, request } = suite;

let carrier: CarrierB;
let shipping: ShippingShop;
let key: string;
let apiWithoutWorker: TestApi;

beforeAll(async () => {
  carrier = await CarrierB.start({ callbackRetry: { attempts: 1 } });
  shipping = await connectShipping(db, shop, { carrier_b: carrier }, 'http://127.0.0.1:9');
  key = (await shop.newKey(SHIPPING_PERMISSIONS, 'Shipping')).key;
  apiWithoutWorker = await startTestApi(db.app, undefined, {
    taskQueue: suite.temporal.taskQueue,
    shipmentWorker: false,
    shipments: { waitMs: 8_000, pollEveryMs: 600_000 },
  });
});
afterAll(async () => {
  await apiWithoutWorker?.close();
  await carrier?.close();
});

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const historyOf = async (workflowId: string): Promise<HistoryEvent[]> =>
  (await suite.temporal.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
const updates = (events: HistoryEvent[]) => events.filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes);
const taskIdentities = (events: HistoryEvent[]) => events.flatMap((event) => event.workflowTaskCompletedEventAttributes?.identity ?? []);

async function pushThrough(baseUrl: string): Promise<{ id: string; status: string; trackingCode: string }> {
  const { orderId } = await readyOrder(db, shop, shipping.warehouseId);
  const response = await fetch(`${baseUrl}/api/open/v1/shipments`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ orderId, connectionId: shipping.connections.carrier_b }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string; status: string; trackingCode: string };
}

describe('a push and a cancel on the API’s own worker', () => {
  it('a push starts eagerly on the API’s worker: 201 with the tracking code, no update in the run, its tasks run by the API', async () => {
    const shipment = await pushThrough(suite.api.baseUrl);
    expect(shipment).toMatchObject({ status: 'pending', trackingCode: expect.stringMatching(/\S/) });
    expect(carrier.orders().filter((order) => order.clientRef === shipment.id)).toHaveLength(1);
    // The answer may come before the task's completion reaches the server: the history catches up.
    const events = await vi.waitFor(async () => {
      const history = await historyOf(trackingWorkflowIdOf(shipment.id));
      expect(taskIdentities(history)).not.toEqual([]);
      return history;
    });
    expect(updates(events)).toEqual([]);
    expect(taskIdentities(events)[0]).toMatch(new RegExp(`^${API_WORKER_IDENTITY} \\d+@`));

    const cancelled = await request('POST', `/shipments/${shipment.id}/cancel`, { key, body: { reason: 'Khách đổi ý' } });
    expect(cancelled.status, await cancelled.clone().text()).toBe(200);
    expect(await cancelled.json()).toMatchObject({ id: shipment.id, status: 'cancelled' });
    await vi.waitFor(async () =>
      expect(taskIdentities(await historyOf(`shipment-cancel:${shipment.id}:1`))[0]).toMatch(new RegExp(`^${API_WORKER_IDENTITY} `)),
    );
  });
});

describe('a push through the server', () => {
  it('with SHIPMENT_WORKER off, the push is update-with-start on the stand-alone workers: 201, the update in the run', async () => {
    const shipment = await pushThrough(apiWithoutWorker.baseUrl);
    expect(shipment).toMatchObject({ status: 'pending', trackingCode: expect.stringMatching(/\S/) });
    const events = await historyOf(trackingWorkflowIdOf(shipment.id));
    expect(updates(events)).toHaveLength(1);
    expect(taskIdentities(events).some((identity) => identity.startsWith(API_WORKER_IDENTITY))).toBe(false);
  });

  it('a start that was not eager (no worker on the client’s connection) asks the run by its update', async () => {
    const connection = await NativeConnection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
    try {
      const outcomes = new ShipmentOutcomes();
      const push = await preparedPush(db, shop, shipping.warehouseId, shipping.connections.carrier_b!);
      const starter = {
        client: suite.temporal.client,
        taskQueue: suite.temporal.taskQueue,
        waitMs: 8_000,
        pollEveryMs: 600_000,
        sealKey: TEST_WORKFLOW_SEAL_KEY,
        eager: () => ({ client: testTemporalClient(connection), outcomes }),
      };
      // The connection it hands over is not taken (the run is elsewhere): it goes with the wait.
      const shipment = await pushShipment(starter, { ...push.keys, connection: push.connection });
      expect(shipment).toMatchObject({ id: push.shipmentId, status: 'pending' });
      expect(outcomes.waiting).toBe(0);
      expect(updates(await historyOf(trackingWorkflowIdOf(push.shipmentId)))).toHaveLength(1);
    } finally {
      await connection.close();
    }
  });

  it('an eager push slower than the wait is 503 carrier-unavailable, and nothing is left waiting in the process', async () => {
    const connection = await NativeConnection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
    const outcomes = new ShipmentOutcomes();
    const taskQueue = `${suite.temporal.taskQueue}-slow`;
    const worker = await createShopflowWorker({
      ...(await testWorkerOptions({ sql: db.app, policy: testOutboundPolicy(), connection, taskQueue })),
      queue: 'shipments',
      shipmentOutcomes: outcomes,
    });
    const running = worker.run();
    try {
      carrier.faults.inject('create', { type: 'timeout', delayMs: 3_000 });
      const push = await preparedPush(db, shop, shipping.warehouseId, shipping.connections.carrier_b!);
      const starter = {
        client: suite.temporal.client,
        taskQueue,
        waitMs: 1_000,
        pollEveryMs: 600_000,
        sealKey: TEST_WORKFLOW_SEAL_KEY,
        eager: () => ({ client: testTemporalClient(connection), outcomes }),
      };
      const answer = pushShipment(starter, { ...push.keys, connection: push.connection });
      await expect(answer).rejects.toMatchObject({ code: 'carrier-unavailable' });
      expect(outcomes.waiting).toBe(0);
    } finally {
      worker.shutdown();
      await running;
      await connection.close();
    }
  });

  it('the push activity hands an accepted push to the waiting request once its record is committed, a workflow activation sooner', async () => {
    const push = await preparedPush(db, shop, shipping.warehouseId, shipping.connections.carrier_b!);
    const workflowId = trackingWorkflowIdOf(push.shipmentId);
    const sealKey = TEST_WORKFLOW_SEAL_KEY;
    const carrierCalls = createCarrierActivities({
      sql: db.app,
      secretsKey: testSecretsKey,
      sealKey,
      adapterOptions: testCarrierOptions(500),
    });
    const records = createShipmentRecordActivities({ sql: db.app, sealKey });
    const heard: { workflowId: string; trackingCode: string | null; committed: string | null }[] = [];
    const activities = createPushActivities({
      carrier: carrierCalls,
      records,
      recorded: (id, shipment) =>
        void db.admin<{ trackingCode: string | null }[]>`select tracking_code from shipments where id = ${shipment.id}`.then(([row]) =>
          heard.push({ workflowId: id, trackingCode: shipment.trackingCode, committed: row?.trackingCode ?? null }),
        ),
    });
    const input = seal(sealKey, { ...push.keys, pollEveryMs: 600_000 }, workflowId) as SealedPush;
    const environment = new MockActivityEnvironment({ workflowExecution: { workflowId, runId: randomUUID() } });
    const pushed = (await environment.run(activities.pushAtCarrier, input)) as PushedAtCarrier;
    await vi.waitFor(() => expect(heard).toHaveLength(1));
    expect(heard[0]).toEqual({ workflowId, trackingCode: pushed.order.trackingCode, committed: pushed.order.trackingCode });
    expect(pushed.shipment).toMatchObject({ id: push.shipmentId, status: 'pending', trackingCode: pushed.order.trackingCode });
  });

  it('the cancel’s record hands a confirmed cancel to the waiting request once it is committed, a workflow activation sooner', async () => {
    const shipment = await pushThrough(suite.api.baseUrl);
    const workflowId = `shipment-cancel:${shipment.id}:1`;
    const sealKey = TEST_WORKFLOW_SEAL_KEY;
    const heard: { workflowId: string; status: string; committed: string | null }[] = [];
    const records = createShipmentRecordActivities({
      sql: db.app,
      sealKey,
      cancelRecorded: (id, cancelled) =>
        void db.admin<{ status: string }[]>`select status from shipments where id = ${cancelled.id}`.then(([row]) =>
          heard.push({ workflowId: id, status: cancelled.status, committed: row?.status ?? null }),
        ),
    });
    const cancel = {
      shopId: shop.shopId,
      shipmentId: shipment.id,
      connectionId: shipping.connections.carrier_b!,
      trackingCode: shipment.trackingCode,
      applicationId: null,
      reason: 'khách đổi ý',
    };
    const input = seal(sealKey, cancel, workflowId) as ShipmentCancelInput;
    const environment = new MockActivityEnvironment({ workflowExecution: { workflowId, runId: randomUUID() } });
    const recorded = (await environment.run(records.recordCancel, input)) as { status: string };
    expect(recorded.status).toBe('cancelled');
    await vi.waitFor(() => expect(heard).toHaveLength(1));
    expect(heard[0]).toEqual({ workflowId, status: 'cancelled', committed: 'cancelled' });
  });

  it('a push’s create takes the connection its request handed over, and reads its own when none or another was handed', async () => {
    // A second carrier account, known only to the handed connection: where the order lands tells which was used.
    const elsewhere = await CarrierB.start();
    try {
      const account = elsewhere.registerShop();
      const sealKey = TEST_WORKFLOW_SEAL_KEY;
      const pushes = [
        await preparedPush(db, shop, shipping.warehouseId, shipping.connections.carrier_b!),
        await preparedPush(db, shop, shipping.warehouseId, shipping.connections.carrier_b!),
        await preparedPush(db, shop, shipping.warehouseId, shipping.connections.carrier_b!),
      ];
      const handedFor = (push: (typeof pushes)[number]): OpenedCarrierConnection => ({
        ...push.connection,
        carrier: 'carrier_b',
        baseUrl: elsewhere.url,
        credentials: { token: account.token, clientSource: account.clientSource },
      });
      const handed = new Map([
        [trackingWorkflowIdOf(pushes[0]!.shipmentId), handedFor(pushes[0]!)],
        [trackingWorkflowIdOf(pushes[1]!.shipmentId), { ...handedFor(pushes[1]!), shopId: randomUUID() }],
      ]);
      const carrierCalls = createCarrierActivities({
        sql: db.app,
        secretsKey: testSecretsKey,
        sealKey,
        adapterOptions: testCarrierOptions(500),
        handedConnection: (workflowId) => handed.get(workflowId),
      });
      for (const push of pushes) {
        const workflowId = trackingWorkflowIdOf(push.shipmentId);
        const input = seal(sealKey, { ...push.keys, pollEveryMs: 600_000 }, workflowId) as SealedPush;
        await new MockActivityEnvironment({ workflowExecution: { workflowId, runId: randomUUID() } }).run(
          carrierCalls.createAtCarrier,
          input,
        );
      }
      const landedAt = (shipmentId: string) =>
        [carrier, elsewhere].map((simulator) => simulator.orders().filter((order) => order.clientRef === shipmentId).length);
      expect(landedAt(pushes[0]!.shipmentId)).toEqual([0, 1]);
      // Handed over for another shop: not taken; none handed over: read from the shop's row.
      expect(landedAt(pushes[1]!.shipmentId)).toEqual([1, 0]);
      expect(landedAt(pushes[2]!.shipmentId)).toEqual([1, 0]);
    } finally {
      await elsewhere.close();
    }
  });
});
