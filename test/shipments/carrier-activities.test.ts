import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCarrierActivities, type CarrierActivities } from '../../activities/shipments/carrier-calls.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { connectCarrier } from '../../domain/shipments/carrier-connections.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { CARRIER_FAILURE_TYPES } from '../../workflows/shipments-carrier-failures.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createShopFixture, testSecretsKey, type ShopFixture } from '../support/fixtures.js';
import { orderRequest, pickUpAddress } from './carrier-order-request.js';

/** The carrier activities: credentials opened from the database, carrier errors as typed failures. */
let db: TestDatabase;
let shop: ShopFixture;
let simulator: CarrierB;
let activities: CarrierActivities;
let connectionId: string;

beforeAll(async () => {
  [db, simulator] = await Promise.all([createTestDatabase(), CarrierB.start()]);
  shop = await createShopFixture(db.app);
  activities = createCarrierActivities({ sql: db.app, secretsKey: testSecretsKey, adapterOptions: { timeoutMs: 500 } });
  const carrierShop = simulator.registerShop();
  connectionId = await withShop(db.app, shop.shopId, async (tx) => {
    const [warehouse] = await tx<{ id: string }[]>`insert into warehouses (shop_id, name) values (${shop.shopId}, 'Kho') returning id`;
    const input = {
      carrier: 'carrier_b' as const,
      name: 'GHTK',
      credentials: { token: carrierShop.token, clientSource: carrierShop.clientSource },
      warehouseId: warehouse!.id,
      baseUrl: simulator.url,
      pickUp: pickUpAddress,
    };
    return (await connectCarrier(tx, shop.shopId, input, testSecretsKey)).connectionId;
  });
});
afterAll(async () => {
  await simulator?.close();
  await db?.drop();
});

async function failureOf(work: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await work.then(
    () => expect.fail('expected a failure'),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

describe('carrier activities', () => {
  it('push, look up, status and cancel through the shop’s connection', async () => {
    const ref = { shopId: shop.shopId, connectionId };
    const request = orderRequest();
    const created = await activities.createAtCarrier({ ...ref, request });
    expect(created).toMatchObject({ shipmentId: request.shipmentId, status: 'pending' });
    expect((await activities.lookUpAtCarrier({ ...ref, shipmentId: request.shipmentId }))?.trackingCode).toBe(created.trackingCode);
    expect(await activities.lookUpAtCarrier({ ...ref, shipmentId: randomUUID() })).toBeNull();
    await activities.cancelAtCarrier({ ...ref, trackingCode: created.trackingCode });
    expect(await activities.carrierStatus({ ...ref, trackingCode: created.trackingCode })).toMatchObject({ status: 'cancelled' });
  });

  it('turn carrier errors into failures of their kind: only unavailable is retried', async () => {
    const ref = { shopId: shop.shopId, connectionId };
    simulator.faults.rejectNextOrders('Hàng cấm vận chuyển');
    const rejected = await failureOf(activities.createAtCarrier({ ...ref, request: orderRequest() }));
    expect(rejected).toMatchObject({ type: CARRIER_FAILURE_TYPES.rejected, nonRetryable: true, details: ['Hàng cấm vận chuyển'] });

    simulator.faults.inject('create', { type: 'unavailable' });
    expect(await failureOf(activities.createAtCarrier({ ...ref, request: orderRequest() }))).toMatchObject({
      type: CARRIER_FAILURE_TYPES.unavailable,
      nonRetryable: false,
    });

    const { trackingCode } = await activities.createAtCarrier({ ...ref, request: orderRequest() });
    simulator.advance(trackingCode, 4);
    expect(await failureOf(activities.cancelAtCarrier({ ...ref, trackingCode }))).toMatchObject({
      type: CARRIER_FAILURE_TYPES['not-cancellable'],
      nonRetryable: true,
    });
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
    const failure = await failureOf(
      activities.lookUpAtCarrier({ shopId: shop.shopId, connectionId: legacy!.id, shipmentId: randomUUID() }),
    );
    expect(failure).toMatchObject({ type: CARRIER_FAILURE_TYPES.unauthorized, nonRetryable: true });
  });
});
