import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { addMember, createPage } from '../../domain/access/index.js';
import { EVENT_READ_PERMISSIONS, EVENT_TYPES, type EventType } from '../../domain/events/index.js';
import { EVENT_EXAMPLES } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { chatKey, simulatorPage } from '../chat/chat-fixtures.js';
import { kitShop, type KitShop } from '../kit/kit-shop.js';
import { ADMIN_PASSWORD, adminLogIn, logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

/**
 * Test events (issue 30): a flow's test-run, through the admin API, the worker and the HTTPS
 * receiver, sends an envelope marked `"test": true` whose `data` is the catalogue's made-up example of
 * its type, or the record the person chose; real deliveries carry no such mark.
 */
const { db, api, shop, receiver, request, get, chat } = useSuite({
  api: true,
  shop: true,
  receiver: true,
  worker: true,
  relay: true,
  chat: true,
});

let admin: AdminRequest;
/** A member who manages flows but may not read customers. */
let manager: AdminRequest;
let ready: KitShop;
let pageId: string;
/** A real customer, with a name and a phone the made-up example does not have. */
const customer = { id: '', name: `Khách thật ${randomUUID().slice(0, 8)}`, phone: '0987 654 321', digits: '987654321' };
let messageId: string;
let chatApiKey: string;

interface Envelope {
  id: string;
  type: string;
  test?: boolean;
  changes?: unknown;
  data: Record<string, unknown>;
}

beforeAll(async () => {
  ({ admin } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
  await withShop(
    db.app,
    shop.shopId,
    (tx) => tx`insert into roles (shop_id, name, permissions) values (${shop.shopId}, 'Flow manager', ${['automation.flows.manage']})`,
  );
  await addMember(db.app, shop.shopId, { email: 'manager@shop.test', name: 'Manager', role: 'Flow manager', password: ADMIN_PASSWORD });
  manager = await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'manager@shop.test', password: ADMIN_PASSWORD });
  ready = await kitShop(db, shop, 1);
  const created = await request('POST', '/customers', {
    key: ready.key,
    body: { name: customer.name, contacts: [{ kind: 'phone', value: customer.phone }] },
  });
  expect(created.status).toBe(201);
  customer.id = ((await created.json()) as { id: string }).id;
  const page = await simulatorPage(db.app, shop.shopId, chat, ['Lan Nguyen']);
  pageId = page.pageId;
  chatApiKey = await chatKey(db.app, shop, [pageId]);
  const messages = (await (await get(`/conversations/${page.customers[0]!.conversationId}/messages`, chatApiKey)).json()) as {
    data: { id: string }[];
  };
  messageId = messages.data[0]!.id;
});

/** A flow of `eventType` (its account reads what the type needs) sending to its own inbox. */
async function newFlow(eventType: EventType, extra: Record<string, unknown> = {}) {
  const inbox = `test-events-${randomUUID()}`;
  const pages = eventType.startsWith('message.') ? { pageId } : {};
  const response = await admin('POST', '/flows', { name: eventType, eventType, url: receiver.url(inbox), ...pages, ...extra });
  expect(response.status, await response.clone().text()).toBe(201);
  const { flow, secret } = (await response.json()) as { flow: { id: string }; secret: string };
  return { flowId: flow.id, secret, inbox };
}

/** A test-run by `who` (the owner by default): the API's answer, and the envelope the receiver got. */
async function testRun(flow: { flowId: string; inbox: string }, body?: unknown, who = admin) {
  const before = receiver.received(flow.inbox).length;
  const response = await who('POST', `/flows/${flow.flowId}/test-run`, body);
  expect(response.status, await response.clone().text()).toBe(200);
  const answer = (await response.json()) as { status: string; request: { body: string | null } };
  const sent = (await receiver.waitFor(flow.inbox, before + 1))[before]!;
  return { answer, sent, envelope: JSON.parse(sent.body) as Envelope };
}

/** The made-up example of `type`, as a flow on the shop's chat page sends it. */
function example(type: EventType) {
  const { data, changes } = EVENT_EXAMPLES[type];
  return { data: type.startsWith('message.') ? { ...data, pageId } : data, changes };
}

describe('a test-run', () => {
  it('without a chosen record sends an envelope marked test with the made-up example: no real customer in it', async () => {
    const flow = await newFlow('customer.created');
    const { answer, sent, envelope } = await testRun(flow);
    expect(answer.status).toBe('delivered');
    expect(envelope).toMatchObject({ type: 'customer.created', test: true, data: example('customer.created').data });
    expect(envelope.id).toMatch(/^evt_/);
    for (const real of [customer.name, customer.digits]) expect(sent.body).not.toContain(real);
    expect(new Webhook(flow.secret).verify(sent.body, sent.headers as Record<string, string>)).toMatchObject({ test: true });
    expect(answer.request.body).toBe(sent.body);
  });

  it('with a chosen record sends that record as its GET answers it, still marked test', async () => {
    const customers = await newFlow('customer.updated');
    const chosen = await testRun(customers, { recordId: customer.id });
    const record = await (await get(`/customers/${customer.id}`, ready.key)).json();
    expect(chosen.envelope).toMatchObject({ type: 'customer.updated', test: true, changes: EVENT_EXAMPLES['customer.updated'].changes });
    expect(chosen.envelope.data).toEqual(record);

    // Stock: the chosen variant's row.
    const stock = await newFlow('inventory.stock_changed');
    const row = ((await (await get(`/inventory/stock?variantId=${ready.variantIds[0]}`, ready.key)).json()) as { data: unknown[] }).data[0];
    expect((await testRun(stock, { recordId: ready.variantIds[0] })).envelope).toMatchObject({ test: true, data: row });

    // A message of the flow's own page; another page's flow does not receive it.
    const messages = await newFlow('message.received');
    const message = (await testRun(messages, { recordId: messageId })).envelope;
    expect(message).toMatchObject({ type: 'message.received', test: true, data: { id: messageId, pageId } });
    const otherPage = await withShop(db.app, shop.shopId, (tx) => createPage(tx, shop.shopId, 'Trang khác'));
    const elsewhere = await newFlow('message.received', { pageId: otherPage.id, pageIds: [otherPage.id] });
    await expectProblem(await admin('POST', `/flows/${elsewhere.flowId}/test-run`, { recordId: messageId }), 400, 'validation-failed');
  });

  it('refuses a record the shop does not have, and a real record to a person who may not read it', async () => {
    const flow = await newFlow('customer.created');
    await expectProblem(await admin('POST', `/flows/${flow.flowId}/test-run`, { recordId: randomUUID() }), 400, 'validation-failed');
    await expectProblem(await admin('POST', `/flows/${flow.flowId}/test-run`, { recordId: 'DH000123' }), 400, 'validation-failed');
    await expectProblem(await manager('POST', `/flows/${flow.flowId}/test-run`, { recordId: customer.id }), 403, 'insufficient-permission');
    // The made-up example needs no read permission.
    const { answer, envelope } = await testRun(flow, undefined, manager);
    expect(answer).toMatchObject({ status: 'delivered', request: { body: null } });
    expect(envelope).toMatchObject({ test: true, data: { id: example('customer.created').data.id } });
    expect(receiver.received(flow.inbox)).toHaveLength(1);
  });

  it("holds a drafted account to the person's permissions, and tests the condition on what the person may read", async () => {
    // A clerk who manages flows and reads orders, not products.
    await withShop(
      db.app,
      shop.shopId,
      (tx) =>
        tx`insert into roles (shop_id, name, permissions) values (${shop.shopId}, 'Order clerk', ${['automation.flows.manage', 'pos.orders.read']})`,
    );
    await addMember(db.app, shop.shopId, { email: 'clerk@shop.test', name: 'Clerk', role: 'Order clerk', password: ADMIN_PASSWORD });
    const clerk = await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'clerk@shop.test', password: ADMIN_PASSWORD });
    const body = { warehouseId: ready.warehouseId, lines: [{ variantId: ready.variantIds[0]!, quantity: '1', unitPrice: '100000' }] };
    const order = (await (await request('POST', '/orders', { key: ready.key, body })).json()) as {
      id: string;
      lines: { productName: string }[];
    };
    const productName = order.lines[0]!.productName;
    const condition = { match: 'all', rules: [{ path: 'data.lines.productName', operator: 'contains', value: productName }] };
    const flow = await newFlow('order.created', { permissions: ['pos.orders.read', 'pos.products.read'], condition });

    // A draft account beyond the clerk's: refused as on save, nothing sent.
    await expectProblem(
      await clerk('POST', `/flows/${flow.flowId}/test-run`, { permissions: ['pos.orders.read', 'pos.products.read'] }),
      403,
      'insufficient-permission',
    );
    // The verdict reads what the clerk may read: the product names are not there for them.
    const asClerk = await testRun(flow, { recordId: order.id }, clerk);
    expect((asClerk.answer as unknown as { condition: { holds: boolean } }).condition.holds).toBe(false);
    expect(asClerk.envelope.data.lines).toEqual([expect.not.objectContaining({ productName })]);
    const asOwner = await testRun(flow, { recordId: order.id });
    expect((asOwner.answer as unknown as { condition: { holds: boolean } }).condition.holds).toBe(true);
    expect(receiver.received(flow.inbox)).toHaveLength(2);
  });

  it("shows a run's data in the history as the flow's account read it", async () => {
    // An account that reads orders but not products: its webhooks carry no product names.
    const flow = await newFlow('order.created', { permissions: ['pos.orders.read'], state: 'on' });
    const body = { warehouseId: ready.warehouseId, lines: [{ variantId: ready.variantIds[0]!, quantity: '1', unitPrice: '100000' }] };
    const order = (await (await request('POST', '/orders', { key: ready.key, body })).json()) as {
      id: string;
      lines: { productName: string }[];
    };
    const sent = JSON.parse((await receiver.waitFor(flow.inbox, 1))[0]!.body) as Envelope;
    expect(sent.data.lines).toEqual([expect.not.objectContaining({ productName: order.lines[0]!.productName })]);
    const history = async () =>
      ((await (await admin('GET', `/flows/${flow.flowId}/deliveries`)).json()) as { data: { data?: { lines: unknown[] } }[] }).data;
    // The owner reads products, the flow's account does not: the history shows what was sent, once
    // the attempt is recorded (the receiver has the webhook a moment before).
    await expect.poll(async () => (await history())[0]?.data?.lines).toEqual(sent.data.lines);
  });

  it('works for every event type of the catalogue: its example, and changes on update types', { timeout: 120_000 }, async () => {
    for (const type of EVENT_TYPES) {
      // With pos.products.read, an order's lines keep their product fields, as in the example.
      const permissions = [...new Set([...EVENT_READ_PERMISSIONS[type], 'pos.products.read'])];
      const { answer, envelope } = await testRun(await newFlow(type, { permissions }));
      const { data, changes } = example(type);
      expect({ type, status: answer.status }).toEqual({ type, status: 'delivered' });
      expect(envelope).toMatchObject({ type, test: true, data });
      expect({ type, changes: envelope.changes ?? null }).toEqual({ type, changes });
    }
  });
});

describe('a real delivery', () => {
  it('is not marked: its envelope has no test field', async () => {
    const flow = await newFlow('customer.created', { state: 'on' });
    const name = `Khách mới ${randomUUID().slice(0, 8)}`;
    expect((await request('POST', '/customers', { key: ready.key, body: { name } })).status).toBe(201);
    const [sent] = await receiver.waitFor(flow.inbox, 1);
    const envelope = JSON.parse(sent!.body) as Envelope;
    expect(envelope).toMatchObject({ type: 'customer.created', data: { name } });
    expect('test' in envelope).toBe(false);
  });
});
