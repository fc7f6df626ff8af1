import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { ulid } from 'ulidx';
import type { AdminRequest } from '../support/admin-session.js';
import { checkScreen } from '../support/browser.js';
import { useSuite } from '../support/suite.js';
import { withShop } from '../../domain/kernel/index.js';
import { writeEvent } from '../../domain/events/index.js';
import { requestsForEvent } from '../../domain/flows/index.js';
import { deliveryOutcome, deliveryWorkflowId, startDelivery } from '../../workflows/deliveries/delivery-starter.js';
import type { deliveries as DeliveryWords } from '../../web/src/i18n/vi/deliveries.js';
import { appMessages, expectSpoken, openAdminApp, SCREEN_RUNS, shown, type Language } from './app-words.js';

/**
 * Issue 31, a flow's delivery history in a real Chromium, in Vietnamese and English, on a desktop and
 * a phone: each delivery says what it was about, when it tries next and how often still; a retrying
 * one is retried now; a failed test-run offers no resend, shows its content, and ends "failed".
 */
const { db, api, shop, receiver, temporal } = useSuite({ api: { secureCookies: false }, shop: true, receiver: true, worker: true });
let page: Page;
let admin: AdminRequest;
openAdminApp({ db, api, shop }, (app) => ({ page, admin } = app));

async function newFlow(body: Record<string, unknown>): Promise<{ id: string }> {
  const response = await admin('POST', '/flows', { eventType: 'order.created', ...body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { flow: { id: string } }).flow;
}

async function history(flowId: string): Promise<{ status: string; attemptsLeft: number | null }[]> {
  return ((await (await admin('GET', `/flows/${flowId}/deliveries`)).json()) as { data: { status: string; attemptsLeft: number | null }[] })
    .data;
}

/** A new order's delivery to the flow (on), started as the relay starts it, waiting `retryDelaysMs` between attempts. */
async function deliverOrder(flowId: string, order: { code: string; billFullName: string }, retryDelaysMs: number[]): Promise<string> {
  const requests = await withShop(db.app, shop.shopId, async (tx) =>
    requestsForEvent(tx, await writeEvent(tx, { shopId: shop.shopId, type: 'order.created', resourceId: randomUUID(), data: order })),
  );
  const request = requests.find((candidate) => candidate.flowId === flowId)!;
  await startDelivery(temporal.deliveries, { ...request, retryDelaysMs });
  return request.eventId;
}

describe.each(SCREEN_RUNS)('the delivery history ($viewport, $language)', ({ viewport, width, height, language }) => {
  let words: typeof DeliveryWords;
  const screen = (label: string) => `${viewport}-${language}-${label}`;
  const delivery = (text: string) => page.getByTestId('delivery').filter({ hasText: text });

  beforeAll(async () => {
    words = (await appMessages(language as Language)).deliveries as typeof DeliveryWords;
    await page.setViewportSize({ width, height });
    await page.goto(`${api.baseUrl}/admin/#/flows`);
    await page.evaluate(`localStorage.setItem('shopflow.language', '${language}')`);
    await page.reload();
    const { flows } = await appMessages(language as Language);
    await page.getByRole('heading', { level: 1, name: (flows as { list: { title: string } }).list.title }).waitFor();
  });

  it('says what each delivery was about, when a retrying one tries next and how many tries are left, and retries it now', async () => {
    const inbox = `retrying-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 503 }, { status: 200 }]);
    const flow = await newFlow({ name: `Đơn sang kho ${viewport}-${language}`, url: receiver.url(inbox), state: 'on' });
    const code = `DH-${ulid().slice(-6)}`;
    // Ten minutes between the two attempts: only "retry now" makes the second one happen during the test.
    const eventId = await deliverOrder(flow.id, { code, billFullName: 'Trần Thị Mai' }, [600_000]);
    await expect.poll(async () => (await history(flow.id))[0]?.attemptsLeft, { timeout: 20_000 }).toBe(1);

    await page.goto(`${api.baseUrl}/admin/#/flows/${flow.id}/history`);
    const row = delivery(`${code} · Trần Thị Mai`);
    await row.getByText(words.statuses.retrying).waitFor();
    const next = await row.getByText(shown(words.nextAttempt)).textContent();
    expect(next).toMatch(/\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}/);
    expect(next).toContain(words.nextAttempt.replace(/.*\{\{time\}\}/, '').replace('{{left}}', '1'));
    await checkScreen(page, screen('deliveries-retrying'));
    await expectSpoken(page, language);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);

    await row.getByRole('button', { name: words.retryNow }).click();
    await page.getByRole('status').filter({ hasText: words.retryAsked }).waitFor();
    expect((await deliveryOutcome(temporal.client.workflow.getHandle(deliveryWorkflowId(flow.id, eventId)))).status).toBe('delivered');
    await row.getByText(words.statuses.delivered, { exact: true }).waitFor({ timeout: 15_000 });
    expect(await row.getByRole('button', { name: words.retryNow }).count()).toBe(0);
    expect(receiver.received(inbox)).toHaveLength(2);
  });

  it('offers no resend of a failed test-run, shows its content to the owner, and calls its last attempt failed, not a retry', async () => {
    const inbox = `failing-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 500 }]);
    const flow = await newFlow({ name: `Chạy thử thất bại ${viewport}-${language}`, url: receiver.url(inbox), state: 'on' });
    expect(((await (await admin('POST', `/flows/${flow.id}/test-run`)).json()) as { status: string }).status).toBe('failed');
    const code = `DH-${ulid().slice(-6)}`;
    await deliverOrder(flow.id, { code, billFullName: 'Lê Văn Nam' }, []);
    await expect.poll(async () => (await history(flow.id)).map((row) => row.status)).toEqual(['failed', 'failed']);

    await page.goto(`${api.baseUrl}/admin/#/flows/${flow.id}/history`);
    const tested = delivery(words.testRun);
    await tested.getByText(words.statuses.failed, { exact: true }).waitFor();
    expect(await tested.getByRole('button', { name: words.resend }).count()).toBe(0);
    await tested.getByText(words.details).click();
    const attempts = tested.getByRole('listitem');
    expect(await attempts.count()).toBe(1);
    expect(await attempts.textContent()).toContain(words.verdicts.last);
    expect(await attempts.textContent()).not.toContain(words.verdicts.retry);
    expect(await tested.locator('pre').last().textContent()).toContain('DH000123');

    const real = delivery(code);
    await real.getByRole('button', { name: words.resend }).waitFor();
    await checkScreen(page, screen('deliveries-failed'));
    await expectSpoken(page, language);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    await real.getByRole('button', { name: words.resend }).click();
    await page.getByRole('status').filter({ hasText: words.resent }).waitFor();
  });
});
