import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { CarrierA, type CarrierAShop } from '../../simulators/carriers/carrier-a.js';
import { CallbackInbox, callJson } from './support.js';

/** Carrier A speaks GHN: these are the behaviours a GHN adapter relies on. */
let carrier: CarrierA;
let inbox: CallbackInbox;

beforeAll(async () => {
  inbox = await CallbackInbox.start();
  carrier = await CarrierA.start({ callbackRetry: { baseDelayMs: 20, timeoutMs: 2_000 } });
});
afterEach(() => carrier.faults.clear());
afterAll(async () => {
  await carrier.close();
  await inbox.close();
});

interface TestShop {
  shop: CarrierAShop;
  /** Where its callbacks arrive; the secret is in the path and the query. */
  callbackPath: string;
  post(path: string, body: unknown, headers?: Record<string, string>): ReturnType<typeof callJson>;
}

function newShop(): TestShop {
  const secret = randomUUID();
  const callbackPath = `/callbacks/carrier-a/${secret}`;
  const shop = carrier.registerShop({ callbackUrl: inbox.url(`${callbackPath}?secret=${secret}`) });
  return {
    shop,
    callbackPath,
    post: (path, body, headers) =>
      callJson('POST', ghn(path), { body, headers: { Token: shop.token, ShopId: String(shop.shopId), ...headers } }),
  };
}

const ghn = (path: string) => `${carrier.url}/shiip/public-api/v2${path}`;
const control = (path: string, body?: unknown, method: 'GET' | 'POST' | 'PUT' = body === undefined ? 'GET' : 'POST') =>
  callJson(method, `${carrier.url}/_control${path}`, { body });

function orderBody(overrides: Record<string, unknown> = {}) {
  return {
    payment_type_id: 2,
    required_note: 'KHONGCHOXEMHANG',
    client_order_code: randomUUID(),
    to_name: 'Nguyễn Văn A',
    to_phone: '0912345678',
    to_address: '12 Lê Lợi',
    to_ward_code: '20108',
    to_district_id: 1442,
    cod_amount: 350_000,
    weight: 1_200,
    items: [{ name: 'Áo thun', quantity: 2 }],
    ...overrides,
  };
}

async function createOrder(shop: TestShop, overrides: Record<string, unknown> = {}): Promise<string> {
  const { status, body } = await shop.post('/shipping-order/create', orderBody(overrides));
  expect(status).toBe(200);
  return body.data.order_code as string;
}

const statusesAt = (path: string) => inbox.at(path).map((callback) => callback.body.Status);

describe('carrier A (GHN-style)', () => {
  it('creates an order with a tracking code, fee and promised day, and answers a repeated client_order_code with that order', async () => {
    const secret = randomUUID();
    const registered = await control('/shops', { callbackUrl: inbox.url(`/callbacks/a-http/${secret}?secret=${secret}`) });
    expect(registered.status).toBe(200);
    const headers = { Token: registered.body.token, ShopId: String(registered.body.shopId) };
    const body = orderBody();

    const created = await callJson('POST', ghn('/shipping-order/create'), { headers, body });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ code: 200, message: 'Success' });
    const { order_code, total_fee, fee, expected_delivery_time } = created.body.data;
    expect(order_code).toMatch(/^G[A-Z2-9]{7}$/);
    expect(total_fee).toBe(Object.values(fee as Record<string, number>).reduce((sum, part) => sum + part, 0));
    expect(fee.main_service).toBeGreaterThan(0);
    expect(Date.parse(expected_delivery_time)).toBeGreaterThan(Date.now());

    const repeated = await callJson('POST', ghn('/shipping-order/create'), { headers, body });
    expect(repeated.status).toBe(400);
    expect(repeated.body).toMatchObject({
      code: 400,
      code_message: 'DUPLICATE_CLIENT_ORDER_CODE',
      data: { order_code, client_order_code: body.client_order_code },
    });
    expect(carrier.orders().filter((order) => order.clientRef === body.client_order_code)).toHaveLength(1);

    const path = `/callbacks/a-http/${secret}`;
    await vi.waitFor(() => expect(inbox.at(path)).toHaveLength(1));
    const [callback] = inbox.at(path);
    expect(callback?.url).toBe(`${path}?secret=${secret}`);
    expect(callback?.body).toMatchObject({
      Type: 'create',
      Status: 'ready_to_pick',
      OrderCode: order_code,
      ClientOrderCode: body.client_order_code,
      ShopID: registered.body.shopId,
      TotalFee: total_fee,
      CODAmount: 350_000,
    });
  });

  it('refuses what it does not serve, in its own error shape, and creates nothing', async () => {
    const shop = newShop();
    const refusals = [
      [{ to_district_id: 9999 }, 'ADDRESS_NOT_SERVED', /9999/],
      [{ to_ward_code: '99999' }, 'ADDRESS_NOT_SERVED', /99999/],
      [{ weight: 25_000 }, 'WEIGHT_OVER_LIMIT', /20000 g/],
      [{ to_phone: 'not a phone' }, 'USER_ERR_COMMON', /to_phone/],
    ] as const;
    for (const [overrides, codeMessage, reason] of refusals) {
      const { status, body } = await shop.post('/shipping-order/create', orderBody(overrides));
      expect(status).toBe(400);
      expect(body).toMatchObject({ code: 400, code_message: codeMessage, data: null });
      expect(body.message).toMatch(reason);
    }
    expect(await shop.post('/shipping-order/create', orderBody({ weight: 25_000, service_type_id: 5 }))).toMatchObject({ status: 200 });

    expect((await control('/reject-next-order', { reason: 'Shop is suspended for unpaid COD fees' })).status).toBe(200);
    const rejected = await shop.post('/shipping-order/create', orderBody());
    expect(rejected).toMatchObject({
      status: 400,
      body: { code_message: 'ORDER_REJECTED', message: 'Shop is suspended for unpaid COD fees' },
    });
    expect(await shop.post('/shipping-order/create', orderBody())).toMatchObject({ status: 200 });
    expect(carrier.orders().filter((order) => order.shopId === shop.shop.shopId)).toHaveLength(2);
  });

  it('refuses a wrong Token with 401 and a ShopId that is not the token’s with 403', async () => {
    const shop = newShop();
    const other = newShop();
    const body = orderBody();
    const wrongToken = await callJson('POST', ghn('/shipping-order/create'), {
      body,
      headers: { Token: 'nope', ShopId: String(shop.shop.shopId) },
    });
    expect(wrongToken).toMatchObject({ status: 401, body: { code: 401, data: null } });
    expect(await callJson('POST', ghn('/shipping-order/create'), { body })).toMatchObject({ status: 401 });
    const foreignShop = await shop.post('/shipping-order/create', body, { ShopId: String(other.shop.shopId) });
    expect(foreignShop).toMatchObject({ status: 403, body: { code: 403, data: null } });
    const noShop = await callJson('POST', ghn('/shipping-order/create'), { body, headers: { Token: shop.shop.token } });
    expect(noShop.status).toBe(403);
    expect(carrier.orders().some((order) => order.clientRef === body.client_order_code)).toBe(false);

    // Reading needs only the token: every shop of the account is visible.
    const orderCode = await createOrder(shop);
    const read = await callJson('POST', ghn('/shipping-order/detail'), {
      body: { order_code: orderCode },
      headers: { Token: shop.shop.token },
    });
    expect(read).toMatchObject({ status: 200, body: { data: { order_code: orderCode, status: 'ready_to_pick' } } });
    const othersRead = await other.post('/shipping-order/detail', { order_code: orderCode });
    expect(othersRead).toMatchObject({ status: 400, body: { code_message: 'ORDER_NOT_FOUND' } });
  });

  it('answers 429 in its own shape beyond the per-shop requests-per-second cap', async () => {
    const shop = newShop();
    const other = newShop();
    expect(await callJson('PUT', `${carrier.url}/_control/rate-limit`, { body: { perSecond: 2 } })).toMatchObject({
      status: 200,
      body: { perSecond: 2 },
    });
    try {
      const detail = () => shop.post('/shipping-order/detail', { order_code: 'GNONE' });
      const answers = [await detail(), await detail(), await detail()];
      expect(answers.map((answer) => answer.status)).toEqual([400, 400, 429]);
      expect(answers[2]?.body).toMatchObject({ code: 429, code_message: 'TOO_MANY_REQUESTS', data: null });
      expect((await other.post('/shipping-order/detail', { order_code: 'GNONE' })).status).toBe(400);
    } finally {
      carrier.rateLimiter.set(20);
    }
  });

  it('cancels only before pick-up, answering each order code on its own', async () => {
    const shop = newShop();
    const waiting = await createOrder(shop);
    const picking = await createOrder(shop);
    const picked = await createOrder(shop);
    await control(`/orders/${picking}/advance`, {});
    await control(`/orders/${picked}/advance`, { status: 'picked' });

    const cancelled = await shop.post('/switch-status/cancel', { order_codes: [waiting, picking, picked, 'GUNKNOWN'] });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toEqual([
      { order_code: waiting, result: true, message: 'OK' },
      { order_code: picking, result: true, message: 'OK' },
      { order_code: picked, result: false, message: expect.stringMatching(/picked.*before pick-up/) },
      { order_code: 'GUNKNOWN', result: false, message: 'Order not found' },
    ]);
    expect(carrier.order(waiting).status).toBe('cancel');
    expect(carrier.order(picked).status).toBe('picked');
    const again = await shop.post('/switch-status/cancel', { order_codes: [waiting] });
    expect(again.body.data).toEqual([{ order_code: waiting, result: true, message: 'The order was already cancelled' }]);
    await vi.waitFor(() => expect(inbox.at(shop.callbackPath).filter((callback) => callback.body.Status === 'cancel')).toHaveLength(2));
    expect(inbox.at(shop.callbackPath).find((callback) => callback.body.Status === 'cancel')?.body.Type).toBe('switch_status');
  });

  it('reports every status change to the registered URL in GHN’s webhook shape, and keeps the log', async () => {
    const shop = newShop();
    const orderCode = await createOrder(shop);
    const path = ['picking', 'picked', 'storing', 'transporting', 'sorting', 'delivering', 'delivered'];
    for (const status of path) expect((await control(`/orders/${orderCode}/advance`, {})).body.status).toBe(status);
    await vi.waitFor(() => expect(inbox.at(shop.callbackPath)).toHaveLength(1 + path.length));
    expect(statusesAt(shop.callbackPath)).toEqual(['ready_to_pick', ...path]);
    for (const callback of inbox.at(shop.callbackPath).slice(1)) {
      expect(callback.url).toMatch(/\?secret=/);
      expect(callback.body).toMatchObject({
        Type: 'switch_status',
        OrderCode: orderCode,
        ShopID: shop.shop.shopId,
        IsPartialReturn: false,
      });
      expect(Number.isNaN(Date.parse(callback.body.Time as string))).toBe(false);
    }
    const detail = await shop.post('/shipping-order/detail', { order_code: orderCode });
    expect(detail.body.data.status).toBe('delivered');
    expect(detail.body.data.log.map((entry: { status: string }) => entry.status)).toEqual(path);
    expect(await control(`/orders/${orderCode}/advance`, {})).toMatchObject({ status: 409 });
    expect(await control(`/orders/${orderCode}/advance`, { status: 'returned' })).toMatchObject({ status: 409 });

    const failing = await createOrder(shop);
    await control(`/orders/${failing}/advance`, { status: 'delivering' });
    await control(`/orders/${failing}/advance`, { status: 'delivery_fail', reason: 'Customer not at home', reasonCode: 'GHN-DFC1A0' });
    await vi.waitFor(() =>
      expect(inbox.at(shop.callbackPath).at(-1)?.body).toMatchObject({
        OrderCode: failing,
        Status: 'delivery_fail',
        Reason: 'Customer not at home',
        ReasonCode: 'GHN-DFC1A0',
      }),
    );
  });

  it('retries a callback the partner answers with 500, and gives up on an unreachable URL', async () => {
    const shop = newShop();
    inbox.answerNext(shop.callbackPath, [500, 503]);
    const orderCode = await createOrder(shop);
    await vi.waitFor(() => expect(inbox.at(shop.callbackPath)).toHaveLength(3));
    await carrier.callbacks.settled();
    const record = carrier.callbacks.list().find((callback) => callback.orderCode === orderCode);
    expect(record?.state).toBe('delivered');
    expect(record?.attempts.map((attempt) => attempt.status)).toEqual([500, 503, 200]);

    const unreachable = carrier.registerShop({ callbackUrl: 'http://127.0.0.1:9/nobody-listens' });
    const lost = await callJson('POST', ghn('/shipping-order/create'), {
      body: orderBody(),
      headers: { Token: unreachable.token, ShopId: String(unreachable.shopId) },
    });
    await carrier.callbacks.settled();
    const failed = carrier.callbacks.list().find((callback) => callback.orderCode === lost.body.data.order_code);
    expect(failed?.state).toBe('failed');
    expect(failed?.attempts).toHaveLength(4);
    expect(failed?.attempts.every((attempt) => attempt.status === null && attempt.error)).toBe(true);
  });

  it('duplicates, reorders and delays the next callbacks on demand', async () => {
    const shop = newShop();
    const orderCode = await createOrder(shop);
    await vi.waitFor(() => expect(inbox.at(shop.callbackPath)).toHaveLength(1));

    await control('/callbacks/duplicate', { count: 1 });
    await control(`/orders/${orderCode}/advance`, {});
    await vi.waitFor(() => expect(statusesAt(shop.callbackPath)).toEqual(['ready_to_pick', 'picking', 'picking']));
    expect(inbox.at(shop.callbackPath)[1]?.body).toEqual(inbox.at(shop.callbackPath)[2]?.body);

    await control('/callbacks/reorder', { count: 2 });
    await control(`/orders/${orderCode}/advance`, {});
    await control(`/orders/${orderCode}/advance`, {});
    await vi.waitFor(() => expect(statusesAt(shop.callbackPath).slice(3)).toEqual(['storing', 'picked']));

    await control('/callbacks/delay', { count: 1, delayMs: 300 });
    await control(`/orders/${orderCode}/advance`, {});
    await control(`/orders/${orderCode}/advance`, {});
    await vi.waitFor(() => expect(statusesAt(shop.callbackPath).slice(5)).toEqual(['sorting', 'transporting']));
    const listed = await control('/callbacks');
    expect(listed.body.callbacks.filter((callback: { copyOf: number | null }) => callback.copyOf !== null).length).toBeGreaterThan(0);
  });

  it('answers 503 for injected unavailability and creates nothing', async () => {
    const shop = newShop();
    expect((await control('/faults', { kind: 'create', type: 'unavailable' })).status).toBe(200);
    const body = orderBody();
    const unavailable = await shop.post('/shipping-order/create', body);
    expect(unavailable).toMatchObject({ status: 503, body: { code: 503, data: null } });
    expect(await shop.post('/shipping-order/detail-by-client-code', { client_order_code: body.client_order_code })).toMatchObject({
      status: 400,
    });
    expect(await shop.post('/shipping-order/create', body)).toMatchObject({ status: 200 });
  });

  it('can accept an order and drop the answer; the order is then found by client_order_code', async () => {
    const shop = newShop();
    await control('/faults', { kind: 'create', type: 'drop-after-accept' });
    const body = orderBody();
    await expect(shop.post('/shipping-order/create', body)).rejects.toThrow();

    const found = await shop.post('/shipping-order/detail-by-client-code', { client_order_code: body.client_order_code });
    expect(found).toMatchObject({ status: 200, body: { data: { client_order_code: body.client_order_code, status: 'ready_to_pick' } } });
    const retried = await shop.post('/shipping-order/create', body);
    expect(retried).toMatchObject({
      status: 400,
      body: { code_message: 'DUPLICATE_CLIENT_ORDER_CODE', data: { order_code: found.body.data.order_code } },
    });
  });

  it('can leave a request unanswered (nothing done) or answer it late', async () => {
    const shop = newShop();
    await control('/faults', { kind: 'create', type: 'timeout' });
    const body = orderBody();
    await expect(
      callJson('POST', ghn('/shipping-order/create'), {
        body,
        headers: { Token: shop.shop.token, ShopId: String(shop.shop.shopId) },
        headersTimeout: 300,
      }),
    ).rejects.toThrow(/timeout/i);
    expect(carrier.orders().some((order) => order.clientRef === body.client_order_code)).toBe(false);

    await control('/faults', { kind: 'detail', type: 'timeout', delayMs: 300 });
    const late = await shop.post('/shipping-order/detail-by-client-code', { client_order_code: body.client_order_code });
    expect(late.status).toBe(400);
    expect(late.elapsedMs).toBeGreaterThanOrEqual(290);
  });
});
