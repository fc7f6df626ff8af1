import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { carrierA } from '../../adapters/carriers/carrier-a.js';
import { carrierB } from '../../adapters/carriers/carrier-b.js';
import { CarrierError, type CarrierAdapter, type CarrierErrorKind } from '../../adapters/carriers/carrier-adapter.js';
import { carrierOrderSchema } from '../../domain/shipments/index.js';
import { CarrierA } from '../../simulators/carriers/carrier-a.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { orderRequest } from './carrier-order-request.js';
import { testCarrierOptions } from '../support/carriers.js';

/** The adapters against the real simulators, over HTTP, as they would speak to GHN and GHTK. */
let simulatorA: CarrierA;
let simulatorB: CarrierB;

beforeAll(async () => {
  [simulatorA, simulatorB] = await Promise.all([CarrierA.start(), CarrierB.start()]);
});
afterEach(() => {
  simulatorA.faults.clear();
  simulatorB.faults.clear();
});
afterAll(async () => {
  await Promise.all([simulatorA?.close(), simulatorB?.close()]);
});

/** Short enough for a test, the same code path as the production 10 s. */
const timeoutMs = 500;

function adapterA(credentials: Partial<{ token: string; shopId: number }> = {}): CarrierAdapter {
  const shop = simulatorA.registerShop();
  return carrierA(
    { baseUrl: simulatorA.url, credentials: { token: shop.token, shopId: shop.shopId, ...credentials } },
    testCarrierOptions(timeoutMs),
  );
}
function adapterB(credentials: Partial<{ token: string; clientSource: string }> = {}): CarrierAdapter {
  const shop = simulatorB.registerShop();
  return carrierB(
    { baseUrl: simulatorB.url, credentials: { token: shop.token, clientSource: shop.clientSource, ...credentials } },
    testCarrierOptions(timeoutMs),
  );
}

async function expectCarrierError(work: Promise<unknown>, kind: CarrierErrorKind, reason?: RegExp): Promise<CarrierError> {
  const error = await work.then(
    () => expect.fail(`expected a ${kind} carrier error`),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(CarrierError);
  expect((error as CarrierError).kind).toBe(kind);
  if (reason) expect((error as CarrierError).reason).toMatch(reason);
  return error as CarrierError;
}

const carriers = [
  {
    name: 'carrier A (GHN-style)',
    adapter: adapterA,
    simulator: () => simulatorA,
    wrongCredentials: [{ token: 'not-a-token' }, { shopId: 1 }],
    faultKinds: { create: 'create', read: 'detail', cancel: 'cancel' } as const,
    created: { carrierStatus: 'ready_to_pick', status: 'pending' },
    advanceTo: (code: string) => simulatorA.advance(code, 'picked'),
    pickedUp: { carrierStatus: 'picked', status: 'delivering' },
    cancelled: { carrierStatus: 'cancel', status: 'cancelled' },
    unservedReason: /does not deliver to the province "Cà Mau"/,
  },
  {
    name: 'carrier B (GHTK-style)',
    adapter: adapterB,
    simulator: () => simulatorB,
    wrongCredentials: [{ token: 'not-a-token' }, { clientSource: 'S000000' }],
    faultKinds: { create: 'create', read: 'status', cancel: 'cancel' } as const,
    created: { carrierStatus: '2', status: 'pending' },
    advanceTo: (code: string) => simulatorB.advance(code, 4),
    pickedUp: { carrierStatus: '4', status: 'delivering' },
    cancelled: { carrierStatus: '-1', status: 'cancelled' },
    unservedReason: /outside the delivery area/,
  },
] as const;

describe.each(carriers)('$name adapter', (carrier) => {
  // The fault plans are typed per simulator; both take the same three kinds of fault.
  const inject = (
    kind: 'create' | 'read' | 'cancel',
    fault: { type: 'unavailable' } | { type: 'timeout' } | { type: 'drop-after-accept' },
  ) => (carrier.simulator().faults as { inject(kind: string, fault: object): void }).inject(carrier.faultKinds[kind], fault);

  it('creates an order, looks it up by our id and by tracking code, and cancels it', async () => {
    const adapter = carrier.adapter();
    const request = orderRequest();
    const created = await adapter.create(request);
    expect(carrierOrderSchema.parse(created)).toEqual(created);
    expect(created).toMatchObject({ shipmentId: request.shipmentId, returnTrackingCode: null, ...carrier.created });
    expect(Number(created.feeTotal)).toBeGreaterThan(0);
    expect(Date.parse(created.expectedDeliveryAt!)).toBeGreaterThan(Date.now());

    expect(await adapter.lookup(request.shipmentId)).toMatchObject({
      trackingCode: created.trackingCode,
      shipmentId: request.shipmentId,
      ...carrier.created,
    });
    expect(await adapter.status(created.trackingCode)).toMatchObject({ trackingCode: created.trackingCode, ...carrier.created });

    await adapter.cancel(created.trackingCode);
    expect(await adapter.status(created.trackingCode)).toMatchObject(carrier.cancelled);
    // Cancelling again is done, not an error: a retry after a lost answer lands here.
    await adapter.cancel(created.trackingCode);
  });

  it('answers a repeated create with the order it already has (same tracking code), creating nothing more', async () => {
    const adapter = carrier.adapter();
    const request = orderRequest();
    const first = await adapter.create(request);
    const again = await adapter.create(request);
    expect(again.trackingCode).toBe(first.trackingCode);
    expect(again).toMatchObject({ shipmentId: request.shipmentId, ...carrier.created });
    const orders = carrier.simulator().orders() as { clientRef: string | null }[];
    expect(orders.filter((order) => order.clientRef === request.shipmentId)).toHaveLength(1);
  });

  it('classifies a refusal of the content as rejected, with the carrier’s reason', async () => {
    const adapter = carrier.adapter();
    carrier.simulator().faults.rejectNextOrders('Pick-up address is blacklisted');
    await expectCarrierError(adapter.create(orderRequest()), 'rejected', /^Pick-up address is blacklisted$/);
    const unserved = { ...orderRequest().recipient, province: 'Cà Mau', district: 'Huyện Năm Căn' };
    await expectCarrierError(adapter.create(orderRequest({ recipient: unserved })), 'rejected', carrier.unservedReason);
  });

  it('classifies bad credentials as unauthorized, and 503, 429 and a time-out as unavailable', async () => {
    for (const credentials of carrier.wrongCredentials) {
      await expectCarrierError(carrier.adapter(credentials).create(orderRequest()), 'unauthorized', /credentials \(40[13]\)/);
    }
    const adapter = carrier.adapter();
    inject('create', { type: 'unavailable' });
    await expectCarrierError(adapter.create(orderRequest()), 'unavailable', /carrier fault \(503\)/);

    carrier.simulator().rateLimiter.set(1);
    try {
      const calls = await Promise.allSettled([adapter.lookup(randomUUID()), adapter.lookup(randomUUID()), adapter.lookup(randomUUID())]);
      const limited = calls.filter((call) => call.status === 'rejected' && (call.reason as CarrierError).kind === 'unavailable');
      expect(limited.length).toBeGreaterThan(0);
      expect((limited[0] as PromiseRejectedResult).reason.reason).toMatch(/429/);
    } finally {
      carrier.simulator().rateLimiter.set(20);
    }

    const { trackingCode } = await adapter.create(orderRequest({ declaredValue: '30000000' }));
    inject('read', { type: 'timeout' });
    const started = Date.now();
    await expectCarrierError(adapter.status(trackingCode), 'unavailable', /no answer/);
    // Cut off by the call's time-out: the carrier never answers.
    expect(Date.now() - started).toBeLessThan(timeoutMs + 5_000);
  });

  it('a dropped answer after acceptance is unavailable; the look-up by our id then finds the order, and a repeated create adopts it', async () => {
    const adapter = carrier.adapter();
    const request = orderRequest();
    inject('create', { type: 'drop-after-accept' });
    await expectCarrierError(adapter.create(request), 'unavailable');
    const found = await adapter.lookup(request.shipmentId);
    expect(found).toMatchObject({ shipmentId: request.shipmentId, ...carrier.created });
    expect((await adapter.create(request)).trackingCode).toBe(found.trackingCode);
  });

  it('refuses to cancel once the parcel is too far along (not-cancellable), and knows no unknown order (not-found)', async () => {
    const adapter = carrier.adapter();
    const { trackingCode } = await adapter.create(orderRequest());
    carrier.advanceTo(trackingCode);
    expect(await adapter.status(trackingCode)).toMatchObject(carrier.pickedUp);
    await expectCarrierError(adapter.cancel(trackingCode), 'not-cancellable');
    await expectCarrierError(adapter.lookup(randomUUID()), 'not-found');
    await expectCarrierError(adapter.status('NO-SUCH-CODE'), 'not-found');
    await expectCarrierError(adapter.cancel('NO-SUCH-CODE'), 'not-found');
  });
});

describe('either adapter', () => {
  it('classifies a carrier that is not there, or another carrier at the base URL, as unavailable', async () => {
    const credentials = { token: 't', shopId: 1, clientSource: 'S1' };
    const closedPort = 'http://127.0.0.1:9';
    await expectCarrierError(
      carrierA({ baseUrl: closedPort, credentials }, testCarrierOptions(timeoutMs)).lookup(randomUUID()),
      'unavailable',
      /no answer/,
    );
    await expectCarrierError(
      carrierB({ baseUrl: closedPort, credentials }, testCarrierOptions(timeoutMs)).lookup(randomUUID()),
      'unavailable',
      /no answer/,
    );
    // Each carrier's 404 for the other's paths: an answer that says nothing about the order.
    await expectCarrierError(carrierA({ baseUrl: simulatorB.url, credentials }, testCarrierOptions(timeoutMs)).status('G1'), 'unavailable');
    await expectCarrierError(
      carrierB({ baseUrl: simulatorA.url, credentials }, testCarrierOptions(timeoutMs)).status('S1.A1.1'),
      'unavailable',
    );
  });
});
