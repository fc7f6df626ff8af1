import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CarrierB, type CarrierBShop } from '../../simulators/carriers/carrier-b.js';
import { CallbackInbox, callJson } from './support.js';

/** Carrier B speaks GHTK: these are the behaviours a GHTK adapter relies on. */
let carrier: CarrierB;
let inbox: CallbackInbox;

beforeAll(async () => {
  inbox = await CallbackInbox.start();
  carrier = await CarrierB.start({ callbackRetry: { baseDelayMs: 20, timeoutMs: 2_000 } });
});
afterEach(() => carrier.faults.clear());
afterAll(async () => {
  await carrier.close();
  await inbox.close();
});

interface TestShop {
  shop: CarrierBShop;
  /** Where its callbacks arrive; the secret is in the query. */
  callbackPath: string;
  call(method: 'GET' | 'POST', path: string, body?: unknown, headers?: Record<string, string>): ReturnType<typeof callJson>;
}

function newShop(): TestShop {
  const secret = randomUUID();
  const callbackPath = `/callbacks/carrier-b/${randomUUID()}`;
  const shop = carrier.registerShop({ callbackUrl: inbox.url(`${callbackPath}?secret=${secret}`) });
  return {
    shop,
    callbackPath,
    call: (method, path, body, headers) =>
      callJson(method, `${carrier.url}${path}`, { body, headers: { Token: shop.token, 'X-Client-Source': shop.clientSource, ...headers } }),
  };
}

const control = (path: string, body?: unknown) => callJson(body === undefined ? 'GET' : 'POST', `${carrier.url}/_control${path}`, { body });
const createPath = '/services/shipment/order/?ver=1.5';

function orderBody(overrides: Record<string, unknown> = {}, products?: unknown[]) {
  return {
    products: products ?? [
      { name: 'Áo thun', weight: 0.3, quantity: 2, price: 150_000 },
      { name: 'Quần jean', weight: 0.6, quantity: 1, price: 400_000 },
    ],
    order: {
      id: randomUUID(),
      pick_name: 'Shop Hoa Mai',
      pick_address: '590 CMT8',
      pick_province: 'TP. Hồ Chí Minh',
      pick_district: 'Quận 3',
      pick_tel: '0911222333',
      name: 'Trần Thị B',
      tel: '0912345678',
      address: '123 Nguyễn Chí Thanh',
      province: 'Hà Nội',
      district: 'Quận Ba Đình',
      ward: 'Phường Ngọc Khánh',
      hamlet: 'Khác',
      pick_money: 700_000,
      value: 700_000,
      is_freeship: '1',
      ...overrides,
    },
  };
}

async function createOrder(
  shop: TestShop,
  overrides: Record<string, unknown> = {},
  products?: unknown[],
): Promise<{ label: string; partnerId: string }> {
  const body = orderBody(overrides, products);
  const { status, body: answer } = await shop.call('POST', createPath, body);
  expect(status).toBe(200);
  expect(answer.success).toBe(true);
  return { label: answer.order.label as string, partnerId: body.order.id };
}

const statusIdsAt = (path: string) => inbox.at(path).map((callback) => callback.body.status_id);

describe('carrier B (GHTK-style)', () => {
  it('creates an order with a label, fee and estimated times, and answers a reused order id with ORDER_ID_EXIST and the label', async () => {
    const shop = newShop();
    const body = orderBody();
    const created = await shop.call('POST', createPath, body);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ success: true, order: { partner_id: body.order.id, area: 2, status_id: 2, insurance_fee: 0 } });
    const { label, fee, estimated_deliver_time } = created.body.order;
    expect(label).toMatch(new RegExp(`^${shop.shop.clientSource}\\.A2\\.\\d{9}$`));
    expect(fee).toBeGreaterThan(0);
    expect(estimated_deliver_time).toMatch(/^(Sáng|Chiều|Tối) \d{4}-\d{2}-\d{2}$/);

    const repeated = await shop.call('POST', createPath, body);
    expect(repeated.status).toBe(200);
    expect(repeated.body).toMatchObject({
      success: false,
      error: { code: 'ORDER_ID_EXIST', partner_id: body.order.id, ghtk_label: label, status: 2 },
    });
    expect(carrier.orders().filter((order) => order.partnerId === body.order.id)).toHaveLength(1);
  });

  it('refuses what it does not serve with success: false and a readable message, creating nothing', async () => {
    const shop = newShop();
    const refusals: [Record<string, unknown>, unknown[] | undefined, RegExp][] = [
      [{ province: 'Cà Mau', district: 'Huyện Năm Căn' }, undefined, /province "Cà Mau"/],
      [{ district: 'Quận 12' }, undefined, /district "Quận 12"/],
      [{}, [{ name: 'Tủ lạnh', weight: 25, quantity: 1 }], /25 kg is over the 20 kg limit/],
      [{ tel: '12' }, undefined, /order\.tel/],
      [{ hamlet: '' }, undefined, /order\.hamlet/],
    ];
    for (const [overrides, products, reason] of refusals) {
      const { status, body } = await shop.call('POST', createPath, orderBody(overrides, products));
      expect(status).toBe(200);
      expect(body.success).toBe(false);
      expect(body.message).toMatch(reason);
    }
    // Grams when told so: 1 200 g is well within the limit.
    await createOrder(shop, { weight_option: 'gram' }, [{ name: 'Sách', weight: 1_200, quantity: 1 }]);

    await control('/reject-next-order', { reason: 'Pick-up address is blacklisted' });
    expect((await shop.call('POST', createPath, orderBody())).body).toEqual({ success: false, message: 'Pick-up address is blacklisted' });
    expect(carrier.orders().filter((order) => order.shopKey === shop.shop.token)).toHaveLength(1);
  });

  it('refuses a wrong Token with 401 and a mismatched X-Client-Source with 403', async () => {
    const shop = newShop();
    const { label } = await createOrder(shop);
    const wrongToken = await shop.call('GET', `/services/shipment/v2/${label}`, undefined, { Token: 'nope' });
    expect(wrongToken).toMatchObject({ status: 401, body: { success: false } });
    const wrongSource = await shop.call('GET', `/services/shipment/v2/${label}`, undefined, { 'X-Client-Source': 'S000000' });
    expect(wrongSource).toMatchObject({ status: 403, body: { success: false } });
    expect(wrongSource.body.message).toMatch(/X-Client-Source/);
    // Another shop cannot see the order.
    expect((await newShop().call('GET', `/services/shipment/v2/${label}`)).body).toMatchObject({
      success: false,
      message: 'Order not found',
    });
  });

  it('answers 429 in its own shape beyond the per-shop requests-per-second cap', async () => {
    const shop = newShop();
    carrier.rateLimiter.set(2);
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push(await shop.call('GET', '/services/shipment/v2/partner_id:none'));
      expect(statuses.map((answer) => answer.status)).toEqual([200, 200, 429]);
      expect(statuses[2]?.body).toMatchObject({ success: false });
      expect((await newShop().call('GET', '/services/shipment/v2/partner_id:none')).status).toBe(200);
    } finally {
      carrier.rateLimiter.set(20);
    }
  });

  it('cancels until the parcel is out for delivery (status 4), by label or partner id', async () => {
    const shop = newShop();
    const inWarehouse = await createOrder(shop);
    const outForDelivery = await createOrder(shop);
    expect(await control(`/orders/${inWarehouse.label}/advance`, { statusId: 3 })).toMatchObject({ status: 200, body: { status: 3 } });
    await control(`/orders/${outForDelivery.label}/advance`, { statusId: 4 });

    const cancelled = await shop.call('POST', `/services/shipment/cancel/partner_id:${inWarehouse.partnerId}`);
    expect(cancelled).toMatchObject({ status: 200, body: { success: true } });
    expect(cancelled.body.log_id).toEqual(expect.any(String));
    expect(carrier.order(inWarehouse.label).status).toBe(-1);
    expect((await shop.call('POST', `/services/shipment/cancel/${inWarehouse.label}`)).body).toEqual({
      success: false,
      message: 'The order is already cancelled',
    });

    const refused = await shop.call('POST', `/services/shipment/cancel/${outForDelivery.label}`);
    expect(refused.body.success).toBe(false);
    expect(refused.body.message).toMatch(/status 4.*no longer be cancelled/);
    expect(carrier.order(outForDelivery.label).status).toBe(4);
    await vi.waitFor(() =>
      expect(inbox.at(shop.callbackPath).find((callback) => callback.body.status_id === -1)?.body.label_id).toBe(inWarehouse.label),
    );
  });

  it('reports status ids to the registered URL in GHTK’s callback shape, and the status endpoint agrees', async () => {
    const shop = newShop();
    const { label, partnerId } = await createOrder(shop);
    const steps = [12, 123, 3, 4, 45, 5, 6];
    for (const statusId of steps) expect((await control(`/orders/${label}/advance`, {})).body.status).toBe(statusId);
    await vi.waitFor(() => expect(statusIdsAt(shop.callbackPath)).toEqual(steps));
    const [first] = inbox.at(shop.callbackPath);
    expect(first?.url).toMatch(/\?secret=/);
    expect(first?.body).toMatchObject({
      partner_id: partnerId,
      label_id: label,
      status_id: 12,
      pick_money: 700_000,
      return_part_package: 0,
      reason: '',
      reason_code: '',
    });
    expect(first?.body.action_time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/);

    const byLabel = await shop.call('GET', `/services/shipment/v2/${label}`);
    expect(byLabel).toMatchObject({
      status: 200,
      body: { success: true, order: { label_id: label, partner_id: partnerId, status: 6, status_text: 'Đã đối soát' } },
    });
    expect(byLabel.body.order.deliver_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect((await shop.call('GET', `/services/shipment/v2/partner_id:${partnerId}`)).body.order.label_id).toBe(label);

    const delayed = await createOrder(shop);
    await control(`/orders/${delayed.label}/advance`, { statusId: 4 });
    await control(`/orders/${delayed.label}/advance`, { statusId: 410, reason: 'Khách hẹn giao lại', reasonCode: '1001' });
    await vi.waitFor(() =>
      expect(inbox.at(shop.callbackPath).at(-1)?.body).toMatchObject({
        label_id: delayed.label,
        status_id: 410,
        reason: 'Khách hẹn giao lại',
        reason_code: '1001',
      }),
    );
    expect(await control(`/orders/${delayed.label}/advance`, { statusId: 2 })).toMatchObject({ status: 409 });
    expect(await control(`/orders/${delayed.label}/advance`, { statusId: 77 })).toMatchObject({ status: 400 });
  });

  it('can lose a callback: the status endpoint still tells', async () => {
    const shop = newShop();
    const { label } = await createOrder(shop);
    await control('/callbacks/lose', { count: 1 });
    await control(`/orders/${label}/advance`, {});
    await control(`/orders/${label}/advance`, {});
    await vi.waitFor(() => expect(statusIdsAt(shop.callbackPath)).toEqual([123]));
    expect((await shop.call('GET', `/services/shipment/v2/${label}`)).body.order.status).toBe(123);
    expect(carrier.callbacks.list().find((callback) => callback.orderCode === label && callback.status === 12)?.state).toBe('lost');
  });

  it('retries a callback the partner answers with 500, and duplicates or reorders callbacks on demand', async () => {
    const shop = newShop();
    const { label } = await createOrder(shop);
    inbox.answerNext(shop.callbackPath, [500]);
    await control(`/orders/${label}/advance`, {});
    await vi.waitFor(() => expect(statusIdsAt(shop.callbackPath)).toEqual([12, 12]));
    await carrier.callbacks.settled();
    expect(
      carrier.callbacks
        .list()
        .find((callback) => callback.orderCode === label)
        ?.attempts.map((attempt) => attempt.status),
    ).toEqual([500, 200]);

    await control('/callbacks/duplicate', { count: 1 });
    await control('/callbacks/reorder', { count: 2 });
    await control(`/orders/${label}/advance`, {});
    await control(`/orders/${label}/advance`, {});
    // The held pair goes newest first (3, 123), and the first one sent is duplicated.
    await vi.waitFor(() => expect(statusIdsAt(shop.callbackPath).slice(2)).toEqual([3, 3, 123]));
  });

  it('faults: 503 creates nothing; a dropped answer leaves the order, found by partner id; reads go unanswered, cancels answer late', async () => {
    const shop = newShop();
    await control('/faults', { kind: 'create', type: 'unavailable' });
    const unavailable = orderBody();
    expect(await shop.call('POST', createPath, unavailable)).toMatchObject({ status: 503, body: { success: false } });
    expect((await shop.call('GET', `/services/shipment/v2/partner_id:${unavailable.order.id}`)).body.success).toBe(false);

    await control('/faults', { kind: 'create', type: 'drop-after-accept' });
    const dropped = orderBody();
    await expect(shop.call('POST', createPath, dropped)).rejects.toThrow();
    const found = await shop.call('GET', `/services/shipment/v2/partner_id:${dropped.order.id}`);
    expect(found.body).toMatchObject({ success: true, order: { partner_id: dropped.order.id, status: 2 } });
    const retried = await shop.call('POST', createPath, dropped);
    expect(retried.body.error).toMatchObject({ code: 'ORDER_ID_EXIST', ghtk_label: found.body.order.label_id });

    await control('/faults', { kind: 'status', type: 'timeout' });
    await expect(
      callJson('GET', `${carrier.url}/services/shipment/v2/${found.body.order.label_id}`, {
        headers: { Token: shop.shop.token, 'X-Client-Source': shop.shop.clientSource },
        headersTimeout: 300,
      }),
    ).rejects.toThrow(/timeout/i);
    await control('/faults', { kind: 'cancel', type: 'timeout', delayMs: 300 });
    const lateCancel = await shop.call('POST', `/services/shipment/cancel/${found.body.order.label_id}`);
    expect(lateCancel.body.success).toBe(true);
    expect(lateCancel.elapsedMs).toBeGreaterThanOrEqual(290);
  });

  it('delivers part of the goods; the rest comes back under a new label whose steps are reported', async () => {
    const shop = newShop();
    const { label, partnerId } = await createOrder(shop);
    await control(`/orders/${label}/advance`, { statusId: 4 });
    const partial = await control(`/orders/${label}/partial-delivery`, {
      collectedMoney: 300_000,
      returnedProducts: [{ name: 'Quần jean', quantity: 1 }],
    });
    expect(partial.status).toBe(200);
    const returnLabel = partial.body.returnLeg.code as string;
    expect(returnLabel).not.toBe(label);

    await vi.waitFor(() => expect(inbox.at(shop.callbackPath)).toHaveLength(3));
    const [, outboundDone, returning] = inbox.at(shop.callbackPath);
    expect(outboundDone?.body).toMatchObject({
      label_id: label,
      partner_id: partnerId,
      status_id: 5,
      return_part_package: 1,
      pick_money: 300_000,
    });
    expect(returning?.body).toMatchObject({
      label_id: returnLabel,
      partner_id: partnerId,
      status_id: 20,
      return_part_package: 1,
      pick_money: 0,
      weight: 0.6,
    });

    const outbound = await shop.call('GET', `/services/shipment/v2/${label}`);
    expect(outbound.body.order).toMatchObject({ status: 5, return_part_package: 1, return_label: returnLabel });
    const returnLeg = await shop.call('GET', `/services/shipment/v2/${returnLabel}`);
    expect(returnLeg.body.order).toMatchObject({
      status: 20,
      partner_id: partnerId,
      parent_label: label,
      products: [{ name: 'Quần jean', quantity: 1 }],
    });
    expect((await shop.call('GET', `/services/shipment/v2/partner_id:${partnerId}`)).body.order.label_id).toBe(label);
    expect((await shop.call('POST', `/services/shipment/cancel/${returnLabel}`)).body.success).toBe(false);

    await control(`/orders/${returnLabel}/advance`, {});
    await control(`/orders/${returnLabel}/advance`, {});
    await vi.waitFor(() =>
      expect(
        inbox
          .at(shop.callbackPath)
          .slice(3)
          .map((callback) => [callback.body.label_id, callback.body.status_id]),
      ).toEqual([
        [returnLabel, 21],
        [returnLabel, 11],
      ]),
    );
    expect(await control(`/orders/${label}/partial-delivery`, {})).toMatchObject({ status: 409 });
  });
});
