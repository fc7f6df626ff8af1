import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { TEST_WORKFLOW_SEAL_KEY } from '../support/temporal.js';
import { sealDeliveryRequest } from '../../domain/flows/delivery-requests.js';
import { createShopFixture } from '../support/fixtures.js';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { addMember } from '../../domain/access/users.js';
import { writeEvent } from '../../domain/events/outbox.js';
import { deliveryIdFor } from '../../domain/flows/flows.js';
import { envelope } from '../../domain/events/event-catalogue.js';
import { deliveryWorkflow } from '../../workflows/deliveries/delivery-workflow.js';
import { deliveryWorkflowId, deliveryOutcome } from '../../workflows/deliveries/delivery-starter.js';

const { db, temporal, api, receiver, shop, request } = useSuite({ api: true, shop: true, receiver: true, worker: true });

const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  await addMember(db.app, shop.shopId, { email: 'admin@shop.test', name: 'Admin', password: PASSWORD });
  await withShop(
    db.app,
    shop.shopId,
    (tx) => tx`
    insert into roles (shop_id, name, permissions) values (${shop.shopId}, 'Flow viewer', ${['automation.flows.view', 'pos.orders.read']})`,
  );
  await addMember(db.app, shop.shopId, { email: 'viewer@shop.test', name: 'Viewer', role: 'Flow viewer', password: PASSWORD });
});

interface Session {
  cookie: string;
  csrfToken: string;
}

async function logIn(email: string, password = PASSWORD): Promise<Session> {
  const response = await fetch(`${api.baseUrl}/api/admin/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ shop: shop.slug, email, password }),
  });
  expect(response.status).toBe(200);
  const [cookie, deviceMark] = response.headers.getSetCookie();
  // Secure: the test API sets cookies as in production. The browser's mark of this login goes back to the login only.
  expect(cookie).toMatch(/^shopflow_session=[^;]+; Max-Age=43200; Path=\/api\/admin; HttpOnly; Secure; SameSite=Strict$/);
  expect(deviceMark).toMatch(/^shopflow_device=[^;]+; Max-Age=31536000; Path=\/api\/admin\/session; HttpOnly; Secure; SameSite=Strict$/);
  return { cookie: cookie!.split(';')[0]!, csrfToken: ((await response.json()) as { csrfToken: string }).csrfToken };
}

function admin(session: Session, method: string, path: string, body?: unknown, csrf = true) {
  return fetch(`${api.baseUrl}/api/admin${path}`, {
    method,
    headers: {
      cookie: session.cookie,
      ...(csrf ? { 'x-csrf-token': session.csrfToken } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function newFlow(session: Session, body: Record<string, unknown>) {
  const response = await admin(session, 'POST', '/flows', { name: 'Flow', eventType: 'product.updated', ...body });
  expect(response.status).toBe(201);
  return (await response.json()) as { flow: { id: string; state: string; permissions: string[] }; secret: string };
}

describe('admin session', () => {
  it('refuses a wrong password, answers without a cookie with 401, and logs out', async () => {
    const wrong = await fetch(`${api.baseUrl}/api/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ shop: shop.slug, email: 'admin@shop.test', password: 'nope' }),
    });
    await expectProblem(wrong, 401, 'invalid-credentials');
    await expectProblem(await fetch(`${api.baseUrl}/api/admin/flows`), 401, 'not-logged-in');
    const session = await logIn('ADMIN@shop.test');
    const me = (await (await admin(session, 'GET', '/session')).json()) as { user: { email: string }; permissions: string[] };
    expect(me.user.email).toBe('admin@shop.test');
    expect(me.permissions).toContain('automation.flows.manage');
    expect((await admin(session, 'POST', '/session/logout')).status).toBe(204);
    await expectProblem(await admin(session, 'GET', '/flows'), 401, 'not-logged-in');
  });

  it('refuses a change without the CSRF token, even with the session cookie', async () => {
    const session = await logIn('admin@shop.test');
    const response = await admin(session, 'POST', '/flows', { name: 'x', eventType: 'product.updated', url: receiver.url('csrf') }, false);
    await expectProblem(response, 403, 'csrf-token-invalid');
    expect(((await (await admin(session, 'GET', '/flows')).json()) as { data: unknown[] }).data).toHaveLength(0);
  });
});

describe('flows in the admin API', () => {
  it('creates, edits, switches and deletes a flow; only https; never more than the saving person holds', async () => {
    const session = await logIn('admin@shop.test');
    await expectProblem(
      await admin(session, 'POST', '/flows', { name: 'x', eventType: 'product.updated', url: 'http://example.com/hook' }),
      400,
      'validation-failed',
    );
    await expectProblem(
      await admin(session, 'POST', '/flows', { name: 'x', eventType: 'message.received', url: receiver.url('m') }),
      400,
      'validation-failed',
    );
    await expectProblem(
      await admin(session, 'POST', '/flows', {
        name: 'x',
        eventType: 'product.updated',
        url: receiver.url('s'),
        permissions: ['settings.members'],
      }),
      403,
      'insufficient-permission',
    );

    const { flow, secret } = await newFlow(session, { url: receiver.url('crud') });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(flow).toMatchObject({ state: 'draft', permissions: ['pos.products.read'] });
    const renamed = (await (await admin(session, 'PATCH', `/flows/${flow.id}`, { name: 'Renamed' })).json()) as { name: string };
    expect(renamed.name).toBe('Renamed');
    const on = (await (await admin(session, 'POST', `/flows/${flow.id}/state`, { state: 'on' })).json()) as {
      state: string;
      switchedOnAt: string;
    };
    expect(on.state).toBe('on');
    expect(on.switchedOnAt).toMatch(/Z$/);
    const rotated = (await (await admin(session, 'POST', `/flows/${flow.id}/secret`)).json()) as { secret: string };
    expect(rotated.secret).not.toBe(secret);
    expect((await admin(session, 'DELETE', `/flows/${flow.id}`)).status).toBe(204);
    await expectProblem(await admin(session, 'GET', `/flows/${flow.id}`), 404, 'not-found');
  });

  it("refuses a chat page absent from the shop (another shop's included) with 400, detail only", async () => {
    const session = await logIn('admin@shop.test');
    const other = await createShopFixture(db.app);
    const insertPage = (shopId: string) =>
      withShop(
        db.app,
        shopId,
        async (tx) => (await tx<{ id: string }[]>`insert into pages (shop_id, name) values (${shopId}, 'Fanpage') returning id`)[0]!.id,
      );
    const [page, foreignPage] = [await insertPage(shop.shopId), await insertPage(other.shopId)];
    const message = { name: 'Messages', eventType: 'message.received', url: receiver.url('pages') };
    await expectAbsentReference(await admin(session, 'POST', '/flows', { ...message, pageId: foreignPage }), 'pageId', foreignPage);
    const { flow } = await newFlow(session, { ...message, pageId: page });
    const missing = randomUUID();
    await expectAbsentReference(await admin(session, 'PATCH', `/flows/${flow.id}`, { pageIds: [page, missing] }), 'pageIds.1', missing);
  });

  it('lets a viewer see flows but not change them', async () => {
    const viewer = await logIn('viewer@shop.test');
    expect((await admin(viewer, 'GET', '/flows')).status).toBe(200);
    await expectProblem(
      await admin(viewer, 'POST', '/flows', { name: 'x', eventType: 'product.updated', url: receiver.url('v') }),
      403,
      'insufficient-permission',
    );
  });

  it('test-runs a flow: a sample event through the delivery workflow, and the receiver’s answer', async () => {
    const session = await logIn('admin@shop.test');
    const inbox = `test-run-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 202, body: '{"received":true}' }]);
    const { flow, secret } = await newFlow(session, { url: receiver.url(inbox) });
    const response = await admin(session, 'POST', `/flows/${flow.id}/test-run`);
    expect(response.status).toBe(200);
    const result = (await response.json()) as {
      status: string;
      workflowId: string;
      attempt: { statusCode: number; durationMs: number; responseExcerpt: string };
    };
    expect(result).toMatchObject({ status: 'delivered', attempt: { statusCode: 202, responseExcerpt: '{"received":true}' } });
    expect(result.workflowId).toMatch(new RegExp(`^flow-test:${flow.id}:`));
    const [request] = receiver.received(inbox);
    expect(JSON.parse(request!.body)).toMatchObject({
      type: 'product.updated',
      apiVersion: 'v1',
      shop: { id: shop.shopId, slug: shop.slug },
    });
    expect(new Webhook(secret).verify(request!.body, request!.headers as Record<string, string>)).toBeTruthy();
  });

  it('shows the delivery history with attempts and a Temporal link, hides content from a viewer lacking the data permission, and resends a failed delivery', async () => {
    const session = await logIn('admin@shop.test');
    const inbox = `history-${randomUUID()}`;
    const { flow } = await newFlow(session, { url: receiver.url(inbox), state: 'on' });
    const eventId = await withShop(db.app, shop.shopId, (tx) =>
      writeEvent(tx, {
        shopId: shop.shopId,
        type: 'product.updated',
        resourceId: randomUUID(),
        data: { id: 'p', name: 'Secret product' },
        changes: { fields: ['name'] },
      }),
    );
    const [event] = await withShop(
      db.app,
      shop.shopId,
      (tx) =>
        tx<
          { id: string; type: 'product.updated'; createdAt: Date; changes: { fields: string[] }; data: Record<string, unknown> }[]
        >`select id, type, created_at, changes, data from events where id = ${eventId}`,
    );
    // A delivery whose short schedule runs out against a failing receiver.
    receiver.respondWith(inbox, [{ status: 500, body: 'boom' }]);
    const deliveryId = deliveryIdFor(flow.id, eventId);
    const input = {
      shopId: shop.shopId,
      flowId: flow.id,
      eventId,
      eventType: 'product.updated',
      deliveryId,
      url: receiver.url(inbox),
      payload: envelope(event!, { id: shop.shopId, slug: shop.slug }, flow.permissions),
    };
    const failed = await deliveryOutcome(
      await temporal.client.workflow.start(deliveryWorkflow, {
        taskQueue: temporal.taskQueue,
        workflowId: deliveryWorkflowId(flow.id, eventId),
        args: [sealDeliveryRequest(TEST_WORKFLOW_SEAL_KEY, { ...input, retryDelaysMs: [100] })],
      }),
    );
    expect(failed.status).toBe('failed');

    const history = (await (await admin(session, 'GET', `/flows/${flow.id}/deliveries`)).json()) as {
      data: {
        deliveryId: string;
        status: string;
        temporalUrl: string;
        attempts: { statusCode: number; responseExcerpt: string | null }[];
        data?: unknown;
      }[];
    };
    expect(history.data[0]).toMatchObject({ deliveryId, status: 'failed', data: { name: 'Secret product' } });
    expect(history.data[0]!.attempts.map((attempt) => [attempt.statusCode, attempt.responseExcerpt])).toEqual([
      [500, 'boom'],
      [500, 'boom'],
    ]);
    expect(history.data[0]!.temporalUrl).toBe(
      `http://127.0.0.1:8233/namespaces/default/workflows/${encodeURIComponent(`delivery:${flow.id}:${eventId}`)}`,
    );

    const viewer = await logIn('viewer@shop.test');
    const seenByViewer = (await (await admin(viewer, 'GET', `/flows/${flow.id}/deliveries`)).json()) as typeof history;
    expect(seenByViewer.data[0]).toMatchObject({ deliveryId, status: 'failed' });
    expect(seenByViewer.data[0]).not.toHaveProperty('data');
    // Both attempts are listed, with the status code kept and the response content hidden.
    expect(
      seenByViewer.data[0]!.attempts.map((attempt) => ({ statusCode: attempt.statusCode, responseExcerpt: attempt.responseExcerpt })),
    ).toEqual([
      { statusCode: 500, responseExcerpt: null },
      { statusCode: 500, responseExcerpt: null },
    ]);

    receiver.respondWith(inbox, [{ status: 200 }]);
    const resent = await admin(session, 'POST', `/flows/${flow.id}/deliveries/${deliveryId}/resend`);
    expect(resent.status).toBe(202);
    await receiver.waitFor(inbox, 3);
    const requests = receiver.received(inbox);
    expect(new Set(requests.map((request) => request.headers['webhook-id']))).toEqual(new Set([deliveryId]));
    await expect
      .poll(async () => ((await (await admin(session, 'GET', `/flows/${flow.id}/deliveries`)).json()) as typeof history).data[0]!.status, {
        timeout: 10_000,
      })
      .toBe('delivered');
    await expectProblem(await admin(session, 'POST', `/flows/${flow.id}/deliveries/${deliveryId}/resend`), 409, 'conflict');
  });
});

describe('test-run visibility', () => {
  interface TestRun {
    status: string;
    attempt: { statusCode: number; responseExcerpt: string | null };
    request: { body: string | null };
  }

  it("sends and shows a member without the data type's read permission no real record, and hides the receiver's answer", async () => {
    await withShop(
      db.app,
      shop.shopId,
      (tx) => tx`
      insert into roles (shop_id, name, permissions) values (${shop.shopId}, 'Flow manager', ${['automation.flows.manage']})`,
    );
    await addMember(db.app, shop.shopId, { email: 'manager@shop.test', name: 'Manager', role: 'Flow manager', password: PASSWORD });
    const { key } = await shop.newKey(['pos.customers.create']);
    const name = `Khách bí mật ${randomUUID().slice(0, 8)}`;
    const created = await request('POST', '/customers', { key, body: { name, contacts: [{ kind: 'phone', value: '0987654321' }] } });
    expect(created.status).toBe(201);
    const customerId = ((await created.json()) as { id: string }).id;
    const inbox = `visibility-${randomUUID()}`;
    const answer = '{"echo":"what the receiver answered"}';
    receiver.respondWith(inbox, [{ status: 200, body: answer }]);
    // The owner saves the flow (its account reads customers); a member who may not read customers test-runs it.
    const owner = await logIn('admin@shop.test');
    const { flow } = await newFlow(owner, { eventType: 'customer.created', url: receiver.url(inbox) });
    expect(flow.permissions).toEqual(['pos.customers.read']);

    const manager = await logIn('manager@shop.test');
    const hidden = await admin(manager, 'POST', `/flows/${flow.id}/test-run`);
    expect(hidden.status).toBe(200);
    const hiddenText = await hidden.text();
    expect(JSON.parse(hiddenText)).toMatchObject({
      status: 'delivered',
      attempt: { statusCode: 200, responseExcerpt: null },
      request: { body: null },
    });
    for (const secret of [name, '987654321', 'what the receiver answered']) expect(hiddenText).not.toContain(secret);
    // What the receiver got is a made-up test event, not the shop's customer.
    const [sentForManager] = receiver.received(inbox);
    expect(sentForManager!.body).not.toContain(name);
    expect(sentForManager!.body).not.toContain('987654321');
    expect(JSON.parse(sentForManager!.body)).toMatchObject({ type: 'customer.created', test: true });

    // The owner, who reads customers, chooses the real customer: shown with the answer.
    const shown = (await (await admin(owner, 'POST', `/flows/${flow.id}/test-run`, { recordId: customerId })).json()) as TestRun;
    expect(shown).toMatchObject({ status: 'delivered', attempt: { statusCode: 200, responseExcerpt: answer } });
    expect(JSON.parse(shown.request.body!)).toMatchObject({ test: true, data: { id: customerId, name } });
    expect(shown.request.body).toContain('987654321');
    expect(receiver.received(inbox)[1]!.body).toBe(shown.request.body);
  });
});

describe('skipped runs', () => {
  it('records a skipped run in the shop log when a change touches nothing in the event data', async () => {
    const session = await logIn('admin@shop.test');
    const { flow } = await newFlow(session, { url: receiver.url('skipped'), state: 'on' });
    const key = (await shop.newKey(['pos.products.read', 'pos.products.create', 'pos.products.update'])).key;
    const call = (method: string, path: string, body: unknown) => request(method, path, { key, body });
    const product = (await (await call('POST', '/products', { name: 'Unchanged', variants: [{ price: '10' }] })).json()) as { id: string };
    expect((await call('PATCH', `/products/${product.id}`, { name: 'Unchanged' })).status).toBe(200);
    const log = await withShop(
      db.app,
      shop.shopId,
      (tx) => tx<{ details: { resourceId: string } }[]>`
      select details from shop_log where action = 'flow.run_skipped' and subject_id = ${flow.id}`,
    );
    expect(log.map((entry) => entry.details.resourceId)).toEqual([product.id]);
  });
});
