import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Connection, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { UNSEALED_INPUT } from '../../activities/shipments/shipment-activities.js';
import { UNSEALED_REQUEST } from '../../activities/deliveries/delivery-activities.js';
import { seal } from '../../domain/kernel/index.js';
import { shipmentTaskQueue } from '../../workflows/shipments/shipment-starter.js';
import { trackingWorkflowId } from '../../workflows/shipments/shipment-workflows.js';
import { testEnv } from '../support/environment.js';
import { shopflowDataConverter } from '../../config/payload-codec.js';
import { TEST_WORKFLOW_SEAL_KEY, testCodecKeys, testTemporalClient } from '../support/temporal.js';
import { useSuite } from '../support/suite.js';
import { connectShipping, preparedPush, type ShippingShop } from '../shipments/shipment-fixtures.js';
import type { forgedActivityCall } from './attacker/forged-activity-call.js';

/**
 * An attacker on the Temporal frontend runs a worker and a workflow of their own that schedules each
 * of Shopflow's activities on Shopflow's queues (issue 47, item 1), with real ids of the shop (read
 * from `temporal workflow list`) and inputs of their choosing: unsealed, or a genuine input copied
 * from another run. Every activity the workers register, on both queues, refuses before it acts; the
 * two that take nothing act only within the worker's own settings.
 */
const suite = useSuite({ worker: { shipments: true }, shop: true, receiver: true });
const { db, shop, temporal, receiver } = suite;

let carrier: CarrierB;
let shipping: ShippingShop;
let attacker: { connection: NativeConnection; client: Client; worker: Worker; running: Promise<void>; taskQueue: string };

beforeAll(async () => {
  carrier = await CarrierB.start();
  shipping = await connectShipping(db, shop, { carrier_b: carrier }, 'http://127.0.0.1:9');
  if (!Runtime._instance) Runtime.install({ logger: new DefaultLogger('WARN') });
  const connection = await NativeConnection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  const taskQueue = `attacker-${randomUUID()}`;
  // The attacker's worker: their own workflow on their own queue. It has the payload codec's key, as
  // whoever reads histories in the Temporal UI does: the seal alone stands in the way.
  const worker = await Worker.create({
    connection,
    taskQueue,
    dataConverter: shopflowDataConverter(testCodecKeys),
    workflowsPath: fileURLToPath(new URL('./attacker/forged-activity-call.ts', import.meta.url)),
  });
  const client = testTemporalClient(await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') }));
  attacker = { connection, client, worker, running: worker.run(), taskQueue };
}, 120_000);
afterAll(async () => {
  attacker?.worker.shutdown();
  await attacker?.running;
  await attacker?.connection.close();
  await attacker?.client.connection.close();
  await carrier?.close();
});

/** Runs one forged call on `queue` from the attacker's workflow; its outcome: `ran`, or the failure type. */
async function forge(queue: string, activity: string, args: unknown[]): Promise<string> {
  return attacker.client.workflow.execute<typeof forgedActivityCall>('forgedActivityCall', {
    taskQueue: attacker.taskQueue,
    workflowId: `forged-${activity}-${randomUUID()}`,
    args: [queue, activity, args],
  });
}

describe('activities scheduled from outside Shopflow', () => {
  it('every registered activity, on both queues, refuses an input not sealed for the running workflow', { timeout: 180_000 }, async () => {
    const inbox = randomUUID();
    const { flowId } = await shop.newFlow({ name: 'Kept', eventType: 'order.created', url: receiver.url(inbox), state: 'on' });
    const connectionId = shipping.connections.carrier_b!;
    // A shipment whose push is on its way: pending, its order ready to ship.
    const pending = await preparedPush(db, shop, shipping.warehouseId, connectionId);
    const { shipmentId, orderId } = pending;
    const push = { ...pending.keys, pollEveryMs: 1_000, seal: 'forged' };
    // The genuine push, sealed for the shipment's own run, copied into the attacker's.
    const copiedPush = seal(TEST_WORKFLOW_SEAL_KEY, { ...pending.keys, pollEveryMs: 1_000 }, trackingWorkflowId(shipmentId));
    const tracking = { shopId: shop.shopId, shipmentId, pollEveryMs: 1_000, seal: 'forged' };
    const cancel = {
      shopId: shop.shopId,
      shipmentId,
      connectionId,
      trackingCode: 'FORGED1',
      applicationId: null,
      reason: 'forged',
      seal: 'forged',
    };
    const order = {
      trackingCode: 'FORGED1',
      shipmentId,
      feeTotal: '0',
      expectedDeliveryAt: null,
      carrierStatus: '2',
      status: 'picked_up',
      returnTrackingCode: null,
    };
    const milestone = { ...order, leg: 'outbound', occurredAt: new Date().toISOString(), location: null, description: null, reason: null };
    const eventId = `evt_${randomUUID()}`;
    const delivery = {
      shopId: shop.shopId,
      flowId,
      eventId,
      eventType: 'order.created',
      deliveryId: `msg_${randomUUID()}`,
      url: receiver.url(inbox),
      payload: '{"forged":true}',
      seal: 'forged',
    };
    const attempt = {
      attemptedAt: new Date().toISOString(),
      statusCode: 200,
      durationMs: 1,
      responseExcerpt: '',
      error: null,
      verdict: 'delivered',
    };
    const recovery = {
      shopId: shop.shopId,
      flowId,
      since: new Date(0).toISOString(),
      until: new Date().toISOString(),
      perMinute: 600,
      found: 1,
      about: { shopSlug: shop.slug, flowName: 'Kept' },
      seal: 'forged',
    };
    const forgeries: Record<string, { args: unknown[]; refusedWith: string }[]> = {
      pushAtCarrier: [
        { args: [push], refusedWith: UNSEALED_INPUT },
        { args: [copiedPush], refusedWith: UNSEALED_INPUT },
      ],
      createAtCarrier: [{ args: [copiedPush], refusedWith: UNSEALED_INPUT }],
      lookUpAtCarrier: [{ args: [push], refusedWith: UNSEALED_INPUT }],
      cancelAtCarrier: [{ args: [cancel], refusedWith: UNSEALED_INPUT }],
      pollCarrier: [{ args: [tracking, { connectionId, trackingCode: 'FORGED1' }], refusedWith: UNSEALED_INPUT }],
      recordPushed: [
        { args: [push, order], refusedWith: UNSEALED_INPUT },
        { args: [copiedPush, order], refusedWith: UNSEALED_INPUT },
      ],
      dropRejected: [{ args: [push], refusedWith: UNSEALED_INPUT }],
      recordMilestone: [{ args: [tracking, { ...milestone, seal: 'forged' }], refusedWith: UNSEALED_INPUT }],
      recordCancel: [{ args: [cancel], refusedWith: UNSEALED_INPUT }],
      trackingTarget: [{ args: [tracking], refusedWith: UNSEALED_INPUT }],
      sendWebhook: [{ args: [delivery, 'forged', 1], refusedWith: UNSEALED_REQUEST }],
      recordWebhookAttempt: [{ args: [delivery, 'forged', attempt], refusedWith: UNSEALED_REQUEST }],
      switchOffHttpSend: [{ args: [delivery, 'forged'], refusedWith: UNSEALED_REQUEST }],
      noteNextAttempt: [{ args: [delivery, { at: new Date().toISOString(), attemptsLeft: 1 }], refusedWith: UNSEALED_REQUEST }],
      markDeliveryFailed: [{ args: [delivery], refusedWith: UNSEALED_REQUEST }],
      nextResends: [{ args: [recovery, null, 100], refusedWith: UNSEALED_INPUT }],
      // They take nothing: what a caller passes is dropped, and they act within the worker's settings.
      purgeExpired: [{ args: [{ deliveryDays: 0, eventDays: 0 }], refusedWith: 'ran' }],
      rollUpFlowHealth: [{ args: [{ shopId: shop.shopId }], refusedWith: 'ran' }],
    };
    const queues = [
      { queue: temporal.taskQueue, names: [...temporal.worker.options.activities.keys()] },
      { queue: shipmentTaskQueue(temporal.taskQueue), names: [...temporal.shipmentWorker!.options.activities.keys()] },
    ];
    // Every activity a worker registers has its forgery here: one added later cannot slip past.
    expect(new Set(queues.flatMap(({ names }) => names))).toEqual(new Set(Object.keys(forgeries)));
    expect(queues[1]!.names.length).toBeGreaterThan(0);

    const events = async () =>
      (await db.admin<{ n: number }[]>`select count(*)::int as n from events where shop_id = ${shop.shopId}`)[0]!.n;
    const eventsBefore = await events();
    const outcomes: string[] = [];
    for (const { queue, names } of queues)
      for (const name of names)
        for (const { args, refusedWith } of forgeries[name]!) {
          const outcome = await forge(queue, name, args);
          outcomes.push(`${name} on ${queue === temporal.taskQueue ? 'main' : 'shipments'}: ${outcome}`);
          expect(`${name}: ${outcome}`).toBe(`${name}: ${refusedWith}`);
        }
    expect(outcomes.length).toBeGreaterThan(30);

    // Nothing changed: the shipment still pending, its order ready to ship, no event, nothing sent anywhere.
    const [row] = await db.admin<{ status: string }[]>`select status from shipments where id = ${shipmentId}`;
    expect(row?.status).toBe('pending');
    const [orderRow] = await db.admin<{ status: string }[]>`select status from orders where id = ${orderId}`;
    expect(orderRow?.status).toBe('ready_to_ship');
    expect(await events()).toBe(eventsBefore);
    expect(carrier.store.orders.all().filter((held) => held.clientRef === shipmentId)).toEqual([]);
    expect(receiver.received(inbox)).toEqual([]);
    expect(await db.admin`select 1 from delivery_attempts where delivery_id = ${delivery.deliveryId}`).toHaveLength(0);
    const [flowRow] = await db.admin<{ state: string }[]>`select state from flows where id = ${flowId}`;
    expect(flowRow?.state).toBe('on');
    await expect(temporal.client.workflow.getHandle(trackingWorkflowId(shipmentId)).describe()).rejects.toBeInstanceOf(
      WorkflowNotFoundError,
    );
  });
});
