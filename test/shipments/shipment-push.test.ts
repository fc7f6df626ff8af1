import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { geoUnitId } from '../../domain/geography/geography.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { connectCarrier } from '../../domain/shipments/carrier-connections.js';
import { addOrder, addProduct, HANOI_RECIPIENT } from '../../scripts/fixtures/index.js';
import { createShopFixture } from '../support/fixtures.js';
import { pickUpAddress } from './carrier-order-request.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { preparedPush, readyOrder, SHIPPING_PERMISSIONS, stockOf, usePushCarrier } from './shipment-fixtures.js';
import { testConnectionKeys } from '../support/carriers.js';

/**
 * `POST /shipments` and `POST /shipments/{id}/cancel` against the carrier B simulator over HTTP,
 * through the real push and cancel workflows on a real Temporal server: every refusal the spec
 * names, the lost answer reconciled, the order and its stock following the shipment.
 */
const suite = useSuite({ api: { shipments: { waitMs: 8_000, pollEveryMs: 600_000 } }, worker: { shipments: true }, shop: true });
const { db, shop, request } = suite;
const { parts, connectionId, push, orderStatus, shipmentsOf, carrierOrdersFor } = usePushCarrier(suite, {
  callbackRetry: { attempts: 2, baseDelayMs: 50 },
});

describe('POST /shipments', () => {
  it('pushes an order: 201 with the tracking code, the order shipped, its goods out of stock, shipment.created', async () => {
    const { orderId, variantId } = await readyOrder(db, shop, parts.shipping.warehouseId, { stock: '10', quantity: '2' });
    const response = await push({ orderId, weightGram: 1200, note: 'Gọi trước khi giao' });
    expect(response.status, await response.clone().text()).toBe(201);
    const shipment = (await response.json()) as Record<string, unknown> & { id: string; trackingCode: string; events: unknown[] };
    expect(shipment).toMatchObject({
      carrier: 'carrier_b',
      status: 'pending',
      orderId,
      codAmount: '300000',
      weightGram: 1200,
      recipientName: 'Trần Thị B',
      recipientPhone: '+84912345678',
    });
    expect(shipment.trackingCode).toMatch(/\S+/);
    expect(shipment).not.toHaveProperty('updatedAt');
    // The acceptance changes no status (the shipment was pending from the push): its step's status is null.
    expect(shipment.events).toEqual([expect.objectContaining({ status: null, carrierStatus: expect.stringMatching(/^\d+$/) })]);
    // What the carrier was sent: the shipment's note among it.
    expect(carrierOrdersFor(shipment.id)).toEqual([expect.objectContaining({ note: 'Gọi trước khi giao' })]);

    expect(await orderStatus(orderId)).toBe('shipped');
    expect(await stockOf(db, variantId, parts.shipping.warehouseId)).toEqual({ quantity: '8', reserved: '0' });
    const events = await db.admin<
      { type: string; changes: unknown }[]
    >`select type, changes from events where resource_id = ${shipment.id}`;
    expect(events).toEqual([{ type: 'shipment.created', changes: null }]);

    const detail = await request('GET', `/shipments/${shipment.id}`, { key: parts.key });
    expect(await detail.json()).toMatchObject({ id: shipment.id, trackingCode: shipment.trackingCode, updatedAt: expect.any(String) });
    expect(await shipmentsOf(orderId)).toEqual([expect.objectContaining({ id: shipment.id, trackingCode: shipment.trackingCode })]);
  });

  it('refuses what needs no carrier: unknown order or connection 404, an order not ready 422, a second live shipment 409, short stock 422', async () => {
    await expectProblem(await push({ orderId: randomUUID() }), 404, 'not-found');
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    await expectProblem(await push({ orderId, connectionId: randomUUID() }), 404, 'not-found');

    const fresh = await readyOrder(db, shop, parts.shipping.warehouseId, { status: 'new' });
    await expectProblem(await push({ orderId: fresh.orderId }), 422, 'order-status-not-allowed');

    expect((await push({ orderId })).status).toBe(201);
    await expectProblem(await push({ orderId }), 409, 'conflict');

    const short = await readyOrder(db, shop, parts.shipping.warehouseId, { stock: '3', quantity: '3' });
    // Stock taken down behind the order's back: shipping would take out more than there is.
    await db.admin`update stock set quantity = 1 where variant_id = ${short.variantId}`;
    await expectProblem(await push({ orderId: short.orderId }), 422, 'insufficient-stock');
    expect(await shipmentsOf(short.orderId)).toEqual([]);
  });

  it('a push of an order whose earlier push is still open is 409 conflict, and its trial of the move leaves no stock moved and no event', async () => {
    // The earlier push's row, its carrier not yet answered: the order is still ready to ship, so the trial runs in full.
    const earlier = await preparedPush(db, shop, parts.shipping.warehouseId, connectionId());
    const stockEvents = async () =>
      (await db.admin`select 1 from events where type = 'inventory.stock_changed' and shop_id = ${shop.shopId}`).length;
    const [stockBefore, eventsBefore] = [await stockOf(db, earlier.variantId, parts.shipping.warehouseId), await stockEvents()];
    await expectProblem(await push({ orderId: earlier.orderId }), 409, 'conflict');
    // A statement of the trial sent after the refusal would run outside its transaction, within milliseconds.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await stockOf(db, earlier.variantId, parts.shipping.warehouseId)).toEqual(stockBefore);
    expect(await stockEvents()).toBe(eventsBefore);
    expect(await orderStatus(earlier.orderId)).toBe('ready_to_ship');
  });

  it('answers 400 for a weight out of 1–50000 g or an unknown field, and writes nothing', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    for (const body of [
      { orderId, weightGram: 0 },
      { orderId, weightGram: 50_001 },
      { orderId, codAmount: '-1' },
      { orderId, extra: 1 },
    ]) {
      await expectProblem(await push(body), 400, 'validation-failed');
    }
    expect(await shipmentsOf(orderId)).toEqual([]);
  });

  it('refuses with 409 an order whose address lacks what its layout needs, and pushes nothing', async () => {
    const ordersBefore = parts.carrier.orders().length;
    const without = (field: keyof typeof HANOI_RECIPIENT) =>
      Object.fromEntries(Object.entries(HANOI_RECIPIENT).filter(([name]) => name !== field)) as Record<string, string>;
    const { districtName: _district, wardName: _ward, ...noUnits } = HANOI_RECIPIENT;
    for (const [address, missing] of [
      [without('recipientName'), 'recipientName'],
      [without('recipientPhone'), 'recipientPhone'],
      [without('addressLine'), 'addressLine'],
      // No unit ids and no district: the layout of 1 July 2025, which needs a ward.
      [noUnits, 'wardName'],
      // A unit of the old system: the old layout, which needs a district.
      [{ ...noUnits, provinceUnitId: geoUnitId('old', '01') }, 'districtName'],
    ] as const) {
      const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId, { address });
      const problem = await expectProblem(await push({ orderId }), 409, 'conflict');
      expect(problem.detail, missing).toContain(`lacks ${missing}`);
      expect(await shipmentsOf(orderId)).toEqual([]);
      expect(await orderStatus(orderId)).toBe('ready_to_ship');
    }
    expect(parts.carrier.orders()).toHaveLength(ordersBefore);
  });

  it('refuses with 409 a push through a switched-off connection, and pushes nothing', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    const switchedOff = await withShop(db.app, shop.shopId, (tx) =>
      connectCarrier(
        tx,
        shop.shopId,
        {
          carrier: 'carrier_b',
          name: 'GHTK (old account)',
          credentials: { token: 'old-token', clientSource: 'S000001' },
          baseUrl: parts.carrier.url,
          warehouseId: parts.shipping.warehouseId,
          pickUp: pickUpAddress,
        },
        testConnectionKeys,
      ),
    );
    await db.admin`update carrier_connections set active = false where id = ${switchedOff.connectionId}`;
    const ordersBefore = parts.carrier.orders().length;
    const problem = await expectProblem(await push({ orderId, connectionId: switchedOff.connectionId }), 409, 'conflict');
    expect(problem.detail).toContain('switched off');
    expect(await shipmentsOf(orderId)).toEqual([]);
    expect(parts.carrier.orders()).toHaveLength(ordersBefore);
  });

  it('a refusal by the carrier is 409 conflict with its reason, and the shipment row is gone', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    parts.carrier.faults.rejectNextOrders('Địa chỉ lấy hàng nằm trong danh sách đen');
    const problem = await expectProblem(await push({ orderId }), 409, 'conflict');
    expect(problem.detail).toContain('Địa chỉ lấy hàng nằm trong danh sách đen');
    expect(await shipmentsOf(orderId)).toEqual([]);
    expect(await orderStatus(orderId)).toBe('ready_to_ship');
  });

  it('an order counted short while the carrier worked stays as it was: the shipment is made, no goods move, the shop log says why', async () => {
    const { orderId, variantIds } = await withShop(db.app, shop.shopId, async (tx) => {
      const product = await addProduct(tx, shop.shopId, {
        name: `Quần ${randomUUID().slice(0, 6)}`,
        price: '100000',
        variants: [{ Size: 'S' }, { Size: 'L' }],
        stock: { warehouseId: parts.shipping.warehouseId, quantity: '5' },
      });
      const ids = product.variants.map((variant) => variant.id).sort();
      const lines = ids.map((variantId) => ({ variantId, quantity: '2', unitPrice: '100000' }));
      const order = await addOrder(
        tx,
        shop.shopId,
        { warehouseId: parts.shipping.warehouseId, shippingAddress: HANOI_RECIPIENT, lines },
        { readyToShip: true },
      );
      return { orderId: order.id, variantIds: ids as [string, string] };
    });
    // Stock rows move in variant order: the first line's goods move before the second's refusal.
    const [moved, short] = variantIds;
    const [movedRow] = await db.admin<{ id: string }[]>`select id from stock where variant_id = ${moved}`;
    const stockEvents = async () => (await db.admin`select 1 from events where resource_id = ${movedRow!.id}`).length;
    const eventsBefore = await stockEvents();
    // The carrier makes the order at once and answers 1.5 s later; meanwhile the second variant is counted short.
    const carrierOrders = parts.carrier.orders().length;
    parts.carrier.faults.inject('create', { type: 'slow-after-accept', delayMs: 1_500 });
    const pushing = push({ orderId });
    await vi.waitFor(() => expect(parts.carrier.orders().length).toBeGreaterThan(carrierOrders), { timeout: 8_000, interval: 20 });
    await db.admin`update stock set quantity = 1 where variant_id = ${short}`;

    const response = await pushing;
    expect(response.status, await response.clone().text()).toBe(201);
    expect(((await response.json()) as { trackingCode: string | null }).trackingCode).toEqual(expect.any(String));
    expect(await orderStatus(orderId)).toBe('ready_to_ship');
    expect(await stockOf(db, moved, parts.shipping.warehouseId)).toEqual({ quantity: '5', reserved: '2' });
    expect(await stockEvents()).toBe(eventsBefore);
    const [log] = await db.admin<{ details: { to: string; reason: string } }[]>`
      select details from shop_log where action = 'shipment.order_not_moved' and subject_id = ${orderId}`;
    expect(log?.details).toMatchObject({ to: 'shipped', reason: expect.stringContaining('on hand') });
  });

  it('a lost answer after the carrier accepted is reconciled by our id: 201, exactly one carrier order', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    parts.carrier.faults.inject('create', { type: 'drop-after-accept' });
    const response = await push({ orderId });
    expect(response.status, await response.clone().text()).toBe(201);
    const shipment = (await response.json()) as { id: string; trackingCode: string };
    expect(carrierOrdersFor(shipment.id)).toEqual([expect.objectContaining({ code: shipment.trackingCode })]);
    expect(await orderStatus(orderId)).toBe('shipped');
  });

  it('replays an Idempotency-Key: the same shipment, one carrier order', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    const idempotencyKey = randomUUID();
    const first = await push({ orderId }, { 'idempotency-key': idempotencyKey });
    const again = await push({ orderId }, { 'idempotency-key': idempotencyKey });
    expect(first.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const shipment = (await first.json()) as { id: string };
    expect(((await again.json()) as { id: string }).id).toBe(shipment.id);
    expect(carrierOrdersFor(shipment.id)).toHaveLength(1);
  });
});

describe('POST /shipments/{id}/cancel', () => {
  it('cancels before pick-up: cancelled with the reason, the order back to ready_to_ship with its goods reserved', async () => {
    const { orderId, variantId } = await readyOrder(db, shop, parts.shipping.warehouseId, { stock: '5', quantity: '2' });
    const shipment = (await (await push({ orderId })).json()) as { id: string; trackingCode: string };
    const response = await request('POST', `/shipments/${shipment.id}/cancel`, { key: parts.key, body: { reason: 'Khách đổi ý' } });
    expect(response.status, await response.clone().text()).toBe(200);
    const cancelled = (await response.json()) as { status: string; events: { status: string | null; reason: string | null }[] };
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.events.at(-1)).toMatchObject({ status: 'cancelled', reason: 'Khách đổi ý' });
    expect(parts.carrier.orders().find((order) => order.code === shipment.trackingCode)?.status).toBe(-1);
    expect(await orderStatus(orderId)).toBe('ready_to_ship');
    expect(await stockOf(db, variantId, parts.shipping.warehouseId)).toEqual({ quantity: '5', reserved: '2' });
    const [log] = await db.admin<{ details: { reason: string } }[]>`
      select details from shop_log where action = 'shipment.cancelled' and subject_id = ${shipment.id}`;
    expect(log?.details.reason).toBe('Khách đổi ý');

    // Ended: cancelling again is refused, and the order can be pushed again.
    await expectProblem(await request('POST', `/shipments/${shipment.id}/cancel`, { key: parts.key }), 409, 'shipment-not-cancellable');
    expect((await push({ orderId })).status).toBe(201);
  });

  it('the carrier decides: out for delivery is 409 shipment-not-cancellable and nothing changes; an unknown id is 404', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    const shipment = (await (await push({ orderId })).json()) as { id: string; trackingCode: string };
    parts.carrier.advance(shipment.trackingCode, 4);
    const refused = await expectProblem(
      await request('POST', `/shipments/${shipment.id}/cancel`, { key: parts.key }),
      409,
      'shipment-not-cancellable',
    );
    expect(refused.detail).toMatch(/\S/);
    expect(await orderStatus(orderId)).toBe('shipped');
    await expectProblem(await request('POST', `/shipments/${randomUUID()}/cancel`, { key: parts.key }), 404, 'not-found');
  });

  it('a carrier down is 503 carrier-unavailable and the shipment stays as it was', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    const shipment = (await (await push({ orderId })).json()) as { id: string };
    parts.carrier.faults.inject('cancel', { type: 'unavailable' }, 3);
    await expectProblem(await request('POST', `/shipments/${shipment.id}/cancel`, { key: parts.key }), 503, 'carrier-unavailable');
    expect(((await (await request('GET', `/shipments/${shipment.id}`, { key: parts.key })).json()) as { status: string }).status).toBe(
      'pending',
    );
  });
});

describe('the shipment rate counter', () => {
  it('60 pushes and cancels a minute per shop, shared by its keys; reads count in the general counter', { timeout: 90_000 }, async () => {
    // A shop of its own: the other tests' pushes count in this minute's window too.
    const quiet = await createShopFixture(db.app);
    const [one, other] = [(await quiet.newKey(SHIPPING_PERMISSIONS, 'One')).key, (await quiet.newKey(SHIPPING_PERMISSIONS, 'Other')).key];
    const cancel = (as: string) => request('POST', `/shipments/${randomUUID()}/cancel`, { key: as });
    // Counters use one-minute windows: start early in one, so the 61 requests share it.
    const secondsIn = new Date().getUTCSeconds();
    if (secondsIn > 30) await new Promise((resolve) => setTimeout(resolve, (61 - secondsIn) * 1000));
    const statuses = await Promise.all([
      ...Array.from({ length: 30 }, () => cancel(one)),
      ...Array.from({ length: 30 }, () => cancel(other)),
    ]);
    expect(statuses.map((response) => response.status)).toEqual(Array.from({ length: 60 }, () => 404));
    const limited = await cancel(other);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    await expectProblem(limited, 429, 'rate-limited');
    await expectProblem(
      await request('POST', '/shipments', { key: one, body: { orderId: randomUUID(), connectionId: randomUUID() } }),
      429,
      'rate-limited',
    );
    expect((await request('GET', '/shipments', { key: one })).status).toBe(200);
  });
});

describe('GET /shipments', () => {
  it('syncs by (updatedAt, id) with cursors and filters; updatedSince holds back what is newer than the safety delay', async () => {
    const { orderId } = await readyOrder(db, shop, parts.shipping.warehouseId);
    const pushed = await push({ orderId });
    expect(pushed.status, await pushed.clone().text()).toBe(201);
    const shipment = (await pushed.json()) as { id: string };
    const page = async (query: string) =>
      (await (await request('GET', `/shipments?${query}`, { key: parts.key })).json()) as {
        data: { id: string; status: string }[];
        nextCursor: string | null;
      };

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const next = await page(`limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...next.data.map((row) => row.id));
      cursor = next.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toContain(shipment.id);

    expect((await page(`orderId=${orderId}`)).data.map((row) => row.id)).toEqual([shipment.id]);
    expect((await page('status=cancelled')).data.every((row) => row.status === 'cancelled')).toBe(true);
    // Everything here changed within the last 2 min 15 s: a sync pass leaves it for the next one.
    expect((await page(`updatedSince=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).data).toEqual([]);
    await expectProblem(await request('GET', '/shipments?status=shipped', { key: parts.key }), 400, 'validation-failed');
    await expectProblem(await request('GET', '/shipments?cursor=forged.AAAAAAAAAAAAAAAAAAAAAA', { key: parts.key }), 400, 'invalid-cursor');
    await expectProblem(await request('GET', `/shipments/${randomUUID()}`, { key: parts.key }), 404, 'not-found');
  });
});
