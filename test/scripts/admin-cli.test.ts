import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';
import { adminCliJson, runAdminCli, runAdminProcess } from '../support/admin-cli.js';
import { hashApiKey, LEAK_PATTERN } from '../../domain/access/api-key-format.js';
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { startTestWorker, TEST_WORKFLOW_SEAL_KEY } from '../support/temporal.js';
import { sealDeliveryRequest } from '../../domain/flows/delivery-requests.js';
import { startTestReceiver, testOutboundPolicy } from '../support/receiver.js';
import { deliveryIdFor } from '../../domain/flows/flows.js';
import { newEventId as randomEventId, writeEvent } from '../../domain/events/outbox.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { deliveryOutcome, deliveryWorkflowId } from '../../workflows/deliveries/delivery-starter.js';
import { deliveryWorkflow } from '../../workflows/deliveries/delivery-workflow.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { bearer } from '../support/fixtures.js';
import { startChatPlatform, type RunningChatPlatform } from '../../simulators/chat/index.js';

const { db } = useSuite();

let extraEnv: Record<string, string> = {};
const admin = (...args: string[]) => runAdminCli(db.appUrl, args, extraEnv);
const json = (...args: string[]) => adminCliJson(db.appUrl, args, extraEnv);

describe('admin CLI', () => {
  it('creates a shop, a person and an application with a key, each as one JSON object', async () => {
    const shop = await json('shop:create', '--slug', 'cli-shop', '--name', 'CLI Shop');
    expect(shop).toEqual({ id: expect.any(String), slug: 'cli-shop', name: 'CLI Shop' });
    const user = await json(
      'user:create',
      '--shop',
      'cli-shop',
      '--email',
      'Owner@CLI.test',
      '--name',
      'Owner',
      '--password',
      'secret-password',
    );
    expect(user).toEqual({ id: expect.any(String), email: 'owner@cli.test' });
    const app = await json(
      'app:create',
      '--shop',
      'cli-shop',
      '--name',
      'ERP',
      '--permissions',
      'pos.orders.read,pos.products.read',
      '--as',
      'owner@cli.test',
    );
    expect(app.key!.match(LEAK_PATTERN)).toEqual([app.key]);
    const [stored] = await db.admin<{ keyHash: string }[]>`select key_hash from api_keys where id = ${app.keyId!}`;
    expect(stored!.keyHash).toBe(hashApiKey(app.key!));

    const rotated = await json('key:rotate', '--app', app.applicationId!, '--overlap-hours', '0');
    expect(rotated.key).not.toBe(app.key);
    const revoked = await json('key:revoke', '--key', rotated.keyId!);
    expect(revoked.keyId).toBe(rotated.keyId);
    await json('shop:set', '--shop', 'cli-shop', '--plan', 'expired', '--automation', 'off');
    const [settings] = await db.admin<
      { plan: string; automationEnabled: boolean }[]
    >`select plan, automation_enabled from shops where slug = 'cli-shop'`;
    expect(settings).toEqual({ plan: 'expired', automationEnabled: false });
  });

  it('refuses --as a member without automation.connections.manage every change to an application or its keys', async () => {
    const shop = await json('shop:create', '--slug', 'cli-clerk', '--name', 'Clerk shop');
    // A clerk holding what the application grants, but not the management of connections.
    await db.admin`insert into roles (shop_id, name, permissions) values (${shop.id!}, 'Clerk', ${['pos.orders.read']})`;
    await json('user:create', '--shop', 'cli-clerk', '--email', 'clerk@cli.test', '--name', 'Clerk', '--role', 'Clerk');
    const app = await json('app:create', '--shop', 'cli-clerk', '--name', 'ERP', '--permissions', 'pos.orders.read');
    const asClerk = ['--as', 'clerk@cli.test'];
    for (const attempt of [
      ['app:update', '--app', app.applicationId!, '--name', 'Renamed', ...asClerk],
      ['key:create', '--app', app.applicationId!, ...asClerk],
      ['key:rotate', '--app', app.applicationId!, '--overlap-hours', '0', ...asClerk],
      ['key:revoke', '--key', app.keyId!, ...asClerk],
      ['app:create', '--shop', 'cli-clerk', '--name', 'Other', '--permissions', 'pos.orders.read', ...asClerk],
    ]) {
      const refused = await admin(...attempt);
      expect({ command: attempt[0], code: refused.code, stdout: refused.stdout }).toEqual({ command: attempt[0], code: 1, stdout: '' });
      expect(refused.stderr).toMatch(/needs automation\.connections\.manage \(insufficient-permission\)/);
    }
    const apps = await db.admin<{ name: string }[]>`select name from applications where shop_id = ${shop.id!}`;
    expect(apps.map((row) => row.name)).toEqual(['ERP']);
    const keys = await db.admin<{ id: string; revokedAt: Date | null; expiresAt: Date | null }[]>`
      select id, revoked_at, expires_at from api_keys where application_id = ${app.applicationId!}`;
    expect(keys).toEqual([{ id: app.keyId, revokedAt: null, expiresAt: null }]);
  });

  it('exits 2 with a usage message on bad input and 1 on a refused operation, printing nothing on stdout', async () => {
    // These two as the process a script starts: its exit status and streams.
    const unknownFlag = await runAdminProcess(db.appUrl, ['shop:create', '--slug', 'x', '--name', 'X', '--colour', 'red']);
    expect(unknownFlag).toMatchObject({ code: 2, stdout: '' });
    expect(unknownFlag.stderr).toMatch(/usage: shop:create/);
    expect(await admin('shop:set', '--shop', 'cli-shop', '--plan', 'gold')).toMatchObject({ code: 2, stdout: '' });
    expect((await admin('nonsense')).code).toBe(2);
    const refused = await runAdminProcess(db.appUrl, [
      'app:create',
      '--shop',
      'cli-shop',
      '--name',
      'Admin',
      '--permissions',
      'settings.members',
    ]);
    expect(refused).toMatchObject({ code: 1, stdout: '' });
    expect(refused.stderr).toMatch(/insufficient-permission/);
    expect((await admin('shop:create', '--slug', 'cli-shop', '--name', 'Again')).code).toBe(1);
  });

  it('creates flows and switches them', async () => {
    await json('shop:create', '--slug', 'cli-flows', '--name', 'Flows');
    const flow = await json(
      'flow:create',
      '--shop',
      'cli-flows',
      '--event',
      'customer.created',
      '--url',
      'https://hooks.example.com/x',
      '--on',
    );
    expect(flow.secret).toMatch(/^whsec_/);
    expect(await json('flow:set', '--flow', flow.flowId!, '--state', 'off')).toEqual({ flowId: flow.flowId, state: 'off' });
    expect(
      (await admin('flow:create', '--shop', 'cli-flows', '--event', 'message.received', '--url', 'https://hooks.example.com/y')).code,
    ).toBe(1);
  });

  it("narrows a shop's order status matrix and locks its prices", async () => {
    await json('shop:create', '--slug', 'cli-statuses', '--name', 'Statuses');
    const narrowed = (await json(
      'shop:order-statuses',
      '--shop',
      'cli-statuses',
      '--remove',
      'new:confirmed,shipped:returning',
    )) as unknown as { matrix: Record<string, string[]> };
    expect(narrowed.matrix.new).toEqual(['waiting_stock', 'packing', 'ready_to_ship', 'cancelled']);
    expect(narrowed.matrix.shipped).toEqual(['delivered', 'cancelled']);
    const restored = (await json('shop:order-statuses', '--shop', 'cli-statuses', '--restore', 'new:confirmed')) as unknown as {
      matrix: Record<string, string[]>;
    };
    expect(restored.matrix.new).toContain('confirmed');
    expect(restored.matrix.shipped).toEqual(['delivered', 'cancelled']);
    const widening = await admin('shop:order-statuses', '--shop', 'cli-statuses', '--remove', 'new:delivered');
    expect({ code: widening.code, stdout: widening.stdout }).toEqual({ code: 1, stdout: '' });
    expect(widening.stderr).toContain('(validation-failed)');
    expect((await admin('shop:order-statuses', '--shop', 'cli-statuses', '--remove', 'new>confirmed')).code).toBe(2);
    expect(await json('shop:set', '--shop', 'cli-statuses', '--lock-prices', 'true')).toMatchObject({
      slug: 'cli-statuses',
      updated: true,
    });
    const [shop] = await db.admin<{ lockPrices: boolean }[]>`select lock_prices from shops where slug = 'cli-statuses'`;
    expect(shop!.lockPrices).toBe(true);
  });

  describe('chat pages', () => {
    let chat: RunningChatPlatform;
    let api: TestApi;
    let pageId: string;
    let pages: () => Promise<unknown>;
    const connected = (value: boolean) => ({ data: [{ id: pageId, name: 'Fashion', platform: 'facebook', connected: value }] });
    beforeAll(async () => {
      chat = await startChatPlatform();
      api = await startTestApi(db.app);
      extraEnv = { CHAT_PLATFORM_URL: chat.url };
    });
    afterAll(async () => {
      extraEnv = {};
      await api?.close();
      await chat?.close();
    });

    it('creates a chat page that GET /pages lists, linked once the platform says the token is its own', async () => {
      await json('shop:create', '--slug', 'cli-pages', '--name', 'Pages');
      const page = await json('page:create', '--shop', 'cli-pages', '--name', 'Fashion');
      expect(page).toEqual({ id: expect.any(String), name: 'Fashion' });
      pageId = page.id!;
      expect((await admin('page:create', '--shop', 'cli-nowhere', '--name', 'Lost')).code).toBe(1);
      const { key } = await json(
        'app:create',
        '--shop',
        'cli-pages',
        '--name',
        'Chat',
        '--permissions',
        'social.pages.read',
        '--pages',
        pageId,
      );
      pages = async () => (await fetch(`${api.baseUrl}/api/open/v1/pages`, { headers: bearer(key!) })).json();
      // Not connected until it is linked to its platform page.
      expect(await pages()).toEqual(connected(false));
      const platform = chat.platform.createPage({ name: 'Fashion' });
      const link = ['chat:link-page', '--shop', 'cli-pages', '--page', pageId, '--platform-page', platform.page.id];
      const refused = await admin(...link, '--token', chat.platform.createPage({ name: 'Another page' }).accessToken);
      expect(refused).toMatchObject({ code: 1, stdout: '' });
      expect(refused.stderr).toContain('(page-not-connected)');
      expect(await json(...link, '--token', platform.accessToken)).toEqual({ pageId, platformPageId: platform.page.id, connected: true });
      expect(await pages()).toEqual(connected(true));
    });

    it('unlinks a chat page, refuses a malformed token as bad input, and lists chat:unlink-page in its help', async () => {
      const malformed = ['chat:link-page', '--shop', 'cli-pages', '--page', pageId, '--platform-page', '1', '--token', 'EAA with spaces'];
      expect(await admin(...malformed)).toMatchObject({ code: 2, stdout: '' });
      expect(await json('chat:unlink-page', '--shop', 'cli-pages', '--page', pageId)).toEqual({ pageId, connected: false });
      expect(await pages()).toEqual(connected(false));
      expect((await admin('chat:unlink-page', '--shop', 'cli-pages', '--page', randomUUID())).stderr).toContain('(not-found)');
      expect((await admin('help')).stderr).toContain('chat:unlink-page --shop S --page ID');
    });
  });

  it('test-runs a flow and resends a failed delivery through the running worker', async () => {
    const temporal = await startTestWorker({ sql: db.app, policy: testOutboundPolicy() });
    const receiver = await startTestReceiver();
    extraEnv = { TEMPORAL_TASK_QUEUE: temporal.taskQueue, WORKFLOW_SEAL_KEY: TEST_WORKFLOW_SEAL_KEY };
    try {
      const shop = await json('shop:create', '--slug', 'cli-deliveries', '--name', 'Deliveries');
      const inbox = randomUUID();
      const { flowId, secret } = await json(
        'flow:create',
        '--shop',
        'cli-deliveries',
        '--event',
        'product.updated',
        '--url',
        receiver.url(inbox),
        '--on',
      );
      const testRun = await json('flow:test', '--flow', flowId!);
      expect(testRun).toMatchObject({
        status: 'delivered',
        statusCode: 200,
        verdict: 'delivered',
        workflowId: expect.stringMatching(/^flow-test:/),
      });
      const [sample] = receiver.received(inbox);
      expect(new Webhook(secret!).verify(sample!.body, sample!.headers as Record<string, string>)).toMatchObject({
        type: 'product.updated',
        apiVersion: 'v1',
      });

      // A delivery whose (shortened) schedule ran out against a failing receiver.
      const eventId = await withShop(db.app, shop.id!, (tx) =>
        writeEvent(tx, {
          shopId: shop.id!,
          type: 'product.updated',
          resourceId: randomUUID(),
          data: { id: randomUUID(), name: 'Dép lê' },
          changes: { fields: ['name'] },
        }),
      );
      const deliveryId = deliveryIdFor(flowId!, eventId);
      receiver.respondWith(inbox, [{ status: 500, body: 'down' }]);
      const failedRun = await temporal.client.workflow.start(deliveryWorkflow, {
        taskQueue: temporal.taskQueue,
        workflowId: deliveryWorkflowId(flowId!, eventId),
        args: [
          sealDeliveryRequest(TEST_WORKFLOW_SEAL_KEY, {
            shopId: shop.id!,
            flowId: flowId!,
            eventId,
            eventType: 'product.updated',
            deliveryId,
            url: receiver.url(inbox),
            payload: '{}',
            retryDelaysMs: [],
          }),
        ],
      });
      expect((await deliveryOutcome(failedRun)).status).toBe('failed');

      receiver.respondWith(inbox, [{ status: 200 }]);
      expect(await json('delivery:resend', '--flow', flowId!, '--delivery', deliveryId)).toEqual({
        deliveryId,
        workflowId: deliveryWorkflowId(flowId!, eventId),
      });
      const resent = (await receiver.waitFor(inbox, 3))[2]!;
      expect(resent.headers['webhook-id']).toBe(deliveryId);
      expect(JSON.parse(resent.body)).toMatchObject({ id: eventId, data: { name: 'Dép lê' } });
      await temporal.client.workflow.getHandle(deliveryWorkflowId(flowId!, eventId)).result();

      const again = await admin('delivery:resend', '--flow', flowId!, '--delivery', deliveryId);
      expect(again.code).toBe(1);
      expect(again.stdout).toBe('');
      expect(again.stderr).toContain('only a failed delivery can be resent (this one is delivered) (conflict)');
      expect((await admin('delivery:resend', '--flow', flowId!, '--delivery', deliveryIdFor(flowId!, randomEventId()))).stderr).toContain(
        '(not-found)',
      );
    } finally {
      extraEnv = {};
      await receiver.close();
      await temporal.shutdown();
    }
  });
});
