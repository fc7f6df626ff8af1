import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { withShop } from '../../domain/kernel/tenancy.js';
import { connectCarrier } from '../../domain/shipments/carrier-connections.js';
import { testConnectionKeys } from '../support/carriers.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { pickUpAddress } from './carrier-order-request.js';
import { readyOrder, usePushCarrier } from './shipment-fixtures.js';

/**
 * `POST /shipments` while the carrier B simulator is down or slower than the API's 8 s wait, through
 * the real shipment workflow on a real Temporal server: 503 carrier-unavailable, the push going on
 * after the answer, and the same push retried with its Idempotency-Key answered by what became of it.
 * Apart from shipment-push.test.ts because each waits out the API's wait: the two files run side by side.
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } }, worker: { shipments: true }, shop: true });
const { db, shop } = suite;
const { parts, push, orderStatus, shipmentsOf, carrierOrdersFor } = usePushCarrier(suite, {
  callbackRetry: { attempts: 2, baseDelayMs: 50 },
});

describe('POST /shipments with a carrier down or slower than the wait', () => {
  it('a carrier down through every attempt, or refusing the credentials, is 503 carrier-unavailable and leaves nothing behind', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    parts.carrier.faults.inject('create', { type: 'unavailable' }, 3);
    parts.carrier.faults.inject('status', { type: 'unavailable' }, 100);
    const started = Date.now();
    const problem = await expectProblem(await push({ orderId }), 503, 'carrier-unavailable');
    // The reconciliation goes on after the answer; the list shows the shipment still being pushed.
    expect(Date.now() - started).toBeGreaterThanOrEqual(7_000);
    expect(problem.detail).toContain(`GET /shipments?orderId=${orderId}`);
    expect(await shipmentsOf(orderId)).toEqual([expect.objectContaining({ trackingCode: null })]);
    // The API answered at the end of its wait, not of the attempts: on a loaded machine the last may
    // still be to come, and would take the next test's fault once these are cleared.
    await vi.waitFor(() => expect(parts.carrier.faults.pending().faults.create ?? []).toEqual([]), { timeout: 30_000, interval: 100 });
    parts.carrier.faults.clear();

    // A connection whose token the carrier does not know: 401 at the carrier, nothing made.
    const other = await readyOrder(db, shop, parts.shipping.warehouseId);
    const stranger = await withShop(db.app, shop.shopId, (tx) =>
      connectCarrier(
        tx,
        shop.shopId,
        {
          carrier: 'carrier_b',
          name: 'GHTK (revoked token)',
          credentials: { token: 'revoked-token', clientSource: 'S000000' },
          baseUrl: parts.carrier.url,
          warehouseId: parts.shipping.warehouseId,
          pickUp: pickUpAddress,
        },
        testConnectionKeys,
      ),
    );
    const refused = await push({ orderId: other.orderId, connectionId: stranger.connectionId });
    await expectProblem(refused, 503, 'carrier-unavailable');
    expect(await shipmentsOf(other.orderId)).toEqual([]);
  });

  it('a carrier slower than the wait is 503 carrier-unavailable; the push goes on, and GET /shipments?orderId= then shows it made', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    // The carrier makes the order at once and answers after the API's 8 s wait is over.
    parts.carrier.faults.inject('create', { type: 'slow-after-accept', delayMs: 10_000 });
    const problem = await expectProblem(await push({ orderId }), 503, 'carrier-unavailable');
    expect(problem.detail).toContain(`GET /shipments?orderId=${orderId}`);
    await vi.waitFor(async () => expect((await shipmentsOf(orderId))[0]?.trackingCode).toEqual(expect.any(String)), {
      timeout: 30_000,
      interval: 250,
    });
    const [shipment] = await shipmentsOf(orderId);
    expect(carrierOrdersFor(shipment!.id)).toEqual([expect.objectContaining({ code: shipment!.trackingCode })]);
    expect(await orderStatus(orderId)).toBe('shipped');
  });

  /** The same push sent again with its key while it answers 503 (the carrier still silent); its first other answer. */
  const retriedUntilAnswered = async (body: Record<string, unknown>, idempotencyKey: string) => {
    for (let tries = 0; tries < 6; tries++) {
      const response = await push(body, { 'idempotency-key': idempotencyKey });
      if (response.status !== 503) return response;
    }
    throw new Error('the push never answered');
  };

  it('a push retried with its Idempotency-Key after a 503 answers what became of it: the shipment, one carrier order', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    const idempotencyKey = randomUUID();
    parts.carrier.faults.inject('create', { type: 'slow-after-accept', delayMs: 10_000 });
    const problem = await expectProblem(await push({ orderId }, { 'idempotency-key': idempotencyKey }), 503, 'carrier-unavailable');
    expect(problem.detail).toContain('same Idempotency-Key');
    // The same key with another body is another request: refused, not resumed.
    await expectProblem(await push({ orderId, weightGram: 999 }, { 'idempotency-key': idempotencyKey }), 422, 'idempotency-key-reused');
    const answered = await retriedUntilAnswered({ orderId }, idempotencyKey);
    expect(answered.status, await answered.clone().text()).toBe(201);
    const shipment = (await answered.json()) as { id: string; trackingCode: string };
    expect(carrierOrdersFor(shipment.id)).toEqual([expect.objectContaining({ code: shipment.trackingCode })]);
    expect((await shipmentsOf(orderId)).map((row) => row.id)).toEqual([shipment.id]);
    // Stored now: replayed.
    const replayed = await push({ orderId }, { 'idempotency-key': idempotencyKey });
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([201, 'true']);
    expect(((await replayed.json()) as { id: string }).id).toBe(shipment.id);
  });

  it('a push retried with its Idempotency-Key after a 503 answers the carrier’s late refusal, and pushes nothing again', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    const idempotencyKey = randomUUID();
    const ordersBefore = parts.carrier.orders().length;
    // Refused after the API's 8 s wait, within the carrier call's 10 s (a second refusal stands ready
    // should a loaded machine time that call out and the push try again).
    parts.carrier.faults.rejectNextOrders('Sai số điện thoại người nhận', 2);
    parts.carrier.faults.inject('create', { type: 'slow-after-accept', delayMs: 8_500 });
    try {
      await expectProblem(await push({ orderId }, { 'idempotency-key': idempotencyKey }), 503, 'carrier-unavailable');
      const refused = await expectProblem(await retriedUntilAnswered({ orderId }, idempotencyKey), 409, 'conflict');
      expect(refused.detail).toContain('Sai số điện thoại người nhận');
    } finally {
      parts.carrier.faults.clear();
    }
    expect(parts.carrier.orders()).toHaveLength(ordersBefore);
    expect(await shipmentsOf(orderId)).toEqual([]);
    expect(await orderStatus(orderId)).toBe('ready_to_ship');
  });
});
