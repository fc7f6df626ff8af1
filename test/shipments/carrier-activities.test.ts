import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CARRIER_FAILURE_TYPES,
  type CarrierActivities,
  createCarrierActivities,
  createPushActivities,
  createShipmentRecordActivities,
  type ShipmentCancelInput,
  type SealedPush,
  UNSEALED_INPUT,
} from '../../activities/shipments/shipment-activities.js';
import { sealedActivities } from '../../activities/sealed-activities.js';
import { createSql } from '../../db/client.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { connectCarrier } from '../../domain/shipments/carrier-connections.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { seal } from '../../domain/kernel/index.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';
import { TEST_WORKFLOW_SEAL_KEY } from '../support/environment.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { orderRequest, pickUpAddress } from './carrier-order-request.js';
import { testCarrierOptions, testConnectionKeys } from '../support/carriers.js';
import { ownSamples, sumOf } from '../support/metrics.js';

/** The carrier activities: credentials opened from the database, carrier errors as typed failures. */
const { db, shop } = useSuite({ shop: true });
let simulator: CarrierB;
let activities: CarrierActivities;
let connectionId: string;

beforeAll(async () => {
  simulator = await CarrierB.start();
  // As the worker registers them: behind the check of their sealed input.
  activities = sealedActivities(
    TEST_WORKFLOW_SEAL_KEY,
    UNSEALED_INPUT,
    createCarrierActivities({
      sql: db.app,
      secretsKey: testSecretsKey,
      sealKey: TEST_WORKFLOW_SEAL_KEY,
      adapterOptions: testCarrierOptions(500),
    }),
  );
  const carrierShop = simulator.registerShop();
  connectionId = await withShop(db.app, shop.shopId, async (tx) => {
    const input = {
      carrier: 'carrier_b' as const,
      name: 'GHTK',
      credentials: { token: carrierShop.token, clientSource: carrierShop.clientSource },
      warehouseId: await addWarehouse(tx, shop.shopId),
      baseUrl: simulator.url,
      pickUp: pickUpAddress,
    };
    return (await connectCarrier(tx, shop.shopId, input, testConnectionKeys)).connectionId;
  });
});
afterAll(async () => {
  await simulator?.close();
});

async function failureOf(work: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await work.then(
    () => expect.fail('expected a failure'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

/** Runs an activity as the worker would, in the workflow `workflowId`. */
function inWorkflow<R>(workflowId: string, work: () => Promise<R>): Promise<R> {
  return new MockActivityEnvironment({ workflowExecution: { workflowId, runId: randomUUID() } }).run(work);
}

/** A push as the API starts it: sealed for its workflow id. */
function sealedPush(request = orderRequest(), ref = { shopId: shop.shopId, connectionId }) {
  const workflowId = `shipment:${request.shipmentId}`;
  const fields = { ...ref, orderId: randomUUID(), carrier: 'carrier_b', applicationId: null, request, pollEveryMs: 60_000 };
  return { workflowId, push: seal(TEST_WORKFLOW_SEAL_KEY, fields, workflowId) as SealedPush };
}

function sealedCancel(trackingCode: string) {
  const workflowId = `shipment-cancel:${randomUUID()}:1`;
  const fields = { shopId: shop.shopId, shipmentId: randomUUID(), connectionId, trackingCode, applicationId: null, reason: null };
  return { workflowId, cancel: seal(TEST_WORKFLOW_SEAL_KEY, fields, workflowId) as ShipmentCancelInput };
}

const create = ({ workflowId, push }: ReturnType<typeof sealedPush>) => inWorkflow(workflowId, () => activities.createAtCarrier(push));
const cancel = ({ workflowId, cancel: input }: ReturnType<typeof sealedCancel>) =>
  inWorkflow(workflowId, () => activities.cancelAtCarrier(input));

describe('carrier activities', () => {
  it('push, look up and cancel through the shop’s connection', async () => {
    const pushed = sealedPush();
    const created = await create(pushed);
    expect(created).toMatchObject({ shipmentId: pushed.push.request.shipmentId, status: 'pending' });
    expect((await inWorkflow(pushed.workflowId, () => activities.lookUpAtCarrier(pushed.push)))?.trackingCode).toBe(created.trackingCode);
    const unknown = sealedPush();
    expect(await inWorkflow(unknown.workflowId, () => activities.lookUpAtCarrier(unknown.push))).toBeNull();
    await cancel(sealedCancel(created.trackingCode));
    expect(simulator.store.orders.get(created.trackingCode)?.status).toBe(-1);
  });

  it('act on nothing that Shopflow did not seal for the running workflow', async () => {
    const pushed = sealedPush();
    const unsealed = { ...pushed.push, seal: undefined } as unknown as SealedPush;
    const forgedKey = seal('not-the-server-key-0123456789abcdef', { ...pushed.push }, pushed.workflowId) as SealedPush;
    const changed = { ...pushed.push, connectionId: randomUUID() };
    const attempts = [
      inWorkflow(pushed.workflowId, () => activities.createAtCarrier(unsealed)),
      inWorkflow(pushed.workflowId, () => activities.createAtCarrier(forgedKey)),
      inWorkflow(pushed.workflowId, () => activities.createAtCarrier(changed)),
      // A sealed input copied into another workflow does not verify there.
      inWorkflow(`shipment:${randomUUID()}`, () => activities.createAtCarrier(pushed.push)),
      inWorkflow('attacker', () => activities.lookUpAtCarrier(pushed.push)),
    ];
    for (const attempt of attempts) expect(await failureOf(attempt)).toMatchObject({ type: UNSEALED_INPUT, nonRetryable: true });
    expect(simulator.store.orders.all().filter((order) => order.clientRef === pushed.push.request.shipmentId)).toEqual([]);
  });

  it('turn carrier errors into failures of their kind: only unavailable is retried', async () => {
    simulator.faults.rejectNextOrders('Hàng cấm vận chuyển');
    const rejected = await failureOf(create(sealedPush()));
    expect(rejected).toMatchObject({ type: CARRIER_FAILURE_TYPES.rejected, nonRetryable: true, details: ['Hàng cấm vận chuyển'] });

    simulator.faults.inject('create', { type: 'unavailable' });
    expect(await failureOf(create(sealedPush()))).toMatchObject({
      type: CARRIER_FAILURE_TYPES.unavailable,
      nonRetryable: false,
    });

    const { trackingCode } = await create(sealedPush());
    simulator.advance(trackingCode, 4);
    expect(await failureOf(cancel(sealedCancel(trackingCode)))).toMatchObject({
      type: CARRIER_FAILURE_TYPES['not-cancellable'],
      nonRetryable: true,
    });
  });

  it('count every call in the metrics by carrier, operation and outcome, with its duration', async () => {
    const calls = async (labels: Record<string, string>) => sumOf(await ownSamples(), 'shopflow_carrier_calls_total', labels);
    const timed = async () =>
      sumOf(await ownSamples(), 'shopflow_carrier_call_duration_seconds_count', { carrier: 'carrier_b', operation: 'create' });
    const before = { ok: await calls({ carrier: 'carrier_b', operation: 'create', outcome: 'ok' }), timed: await timed() };
    const unavailableBefore = await calls({ carrier: 'carrier_b', operation: 'create', outcome: 'unavailable' });
    const rejectedBefore = await calls({ carrier: 'carrier_b', operation: 'create', outcome: 'rejected' });

    await create(sealedPush());
    simulator.faults.inject('create', { type: 'unavailable' });
    await failureOf(create(sealedPush()));
    simulator.faults.rejectNextOrders('Hàng cấm vận chuyển');
    await failureOf(create(sealedPush()));

    expect(await calls({ carrier: 'carrier_b', operation: 'create', outcome: 'ok' })).toBe(before.ok + 1);
    expect(await calls({ carrier: 'carrier_b', operation: 'create', outcome: 'unavailable' })).toBe(unavailableBefore + 1);
    expect(await calls({ carrier: 'carrier_b', operation: 'create', outcome: 'rejected' })).toBe(rejectedBefore + 1);
    expect(await timed()).toBe(before.timed + 3);
    // No shop, connection or order reaches a label.
    const labels = (await ownSamples())
      .filter((sample) => sample.name.startsWith('shopflow_carrier_'))
      .flatMap((sample) => Object.values(sample.labels));
    expect(labels.filter((value) => value.includes(shop.shopId) || value.includes(connectionId))).toEqual([]);
  });

  it('a connection without credentials fails as unauthorized (unusable), not retried', async () => {
    const [legacy] = await withShop(
      db.app,
      shop.shopId,
      (tx) =>
        tx<
          { id: string }[]
        >`insert into carrier_connections (shop_id, carrier, name) values (${shop.shopId}, 'carrier_b', 'Legacy') returning id`,
    );
    const pushed = sealedPush(orderRequest(), { shopId: shop.shopId, connectionId: legacy!.id });
    const failure = await failureOf(inWorkflow(pushed.workflowId, () => activities.lookUpAtCarrier(pushed.push)));
    expect(failure).toMatchObject({ type: CARRIER_FAILURE_TYPES.unauthorized, nonRetryable: true });
  });

  it('push and record in one call; a record that fails leaves the accepted order for the workflow to record', async () => {
    // A database that does not answer: the record fails for real, after the carrier has accepted.
    const unreachable = createSql('postgres://shopflow@127.0.0.1:1/none', { applicationName: 'shopflow-test-unreachable', max: 1 });
    const unrecorded = createPushActivities({
      carrier: activities,
      records: createShipmentRecordActivities({ sql: unreachable, sealKey: TEST_WORKFLOW_SEAL_KEY }),
    });
    try {
      const pushed = sealedPush();
      const result = await inWorkflow(pushed.workflowId, () => unrecorded.pushAtCarrier(pushed.push));
      expect(result.order).toMatchObject({ shipmentId: pushed.push.request.shipmentId, status: 'pending' });
      expect(result).not.toHaveProperty('shipment');
      expect(simulator.store.orders.get(result.order.trackingCode)).toBeDefined();
      // A push whose row is gone (deleted meanwhile) comes back recorded as nothing: null, not absent.
      const recorded = createPushActivities({
        carrier: activities,
        records: createShipmentRecordActivities({ sql: db.app, sealKey: TEST_WORKFLOW_SEAL_KEY }),
      });
      const gone = sealedPush();
      expect(await inWorkflow(gone.workflowId, () => recorded.pushAtCarrier(gone.push))).toMatchObject({ shipment: null });
    } finally {
      await unreachable.end({ timeout: 0 });
    }
  });
});
