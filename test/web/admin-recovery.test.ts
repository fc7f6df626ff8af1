import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { AdminRequest } from '../support/admin-session.js';
import { checkScreen } from '../support/browser.js';
import { useSuite } from '../support/suite.js';
import { withShop } from '../../domain/kernel/index.js';
import { writeEvent } from '../../domain/events/index.js';
import { requestsForEvent } from '../../domain/flows/index.js';
import { deliveryOutcome, deliveryWorkflowId, startDelivery } from '../../workflows/deliveries/delivery-starter.js';
import type { recovery as RecoveryWords } from '../../web/src/i18n/vi/recovery.js';
import { appMessages, expectSpoken, openAdminApp, SCREEN_RUNS, shown, type Language } from './app-words.js';

/**
 * Issue 32, recovery in one step, in a real Chromium, in Vietnamese and English, on a desktop and a
 * phone: on a flow's delivery history, the admin chooses the time and the pace, starts the batch, and
 * watches it find, resend and deliver the failed deliveries.
 */
const { db, api, shop, receiver, temporal } = useSuite({ api: { secureCookies: false }, shop: true, receiver: true, worker: true });
let page: Page;
let admin: AdminRequest;
openAdminApp({ db, api, shop }, (app) => ({ page, admin } = app));

/** A flow (on) whose `count` deliveries of new orders failed at once against a receiver answering 500; the receiver is then back. */
async function flowWithFailures(name: string, count: number): Promise<string> {
  const inbox = `recovery-${randomUUID()}`;
  receiver.respondWith(inbox, [{ status: 500 }]);
  const response = await admin('POST', '/flows', { name, eventType: 'order.created', url: receiver.url(inbox), state: 'on' });
  expect(response.status).toBe(201);
  const flowId = ((await response.json()) as { flow: { id: string } }).flow.id;
  for (let index = 0; index < count; index += 1) {
    const requests = await withShop(db.app, shop.shopId, async (tx) => {
      const data = { code: `DH-${index}`, billFullName: 'Lê Văn Bình' };
      return requestsForEvent(tx, await writeEvent(tx, { shopId: shop.shopId, type: 'order.created', resourceId: randomUUID(), data }));
    });
    const request = requests.find((candidate) => candidate.flowId === flowId)!;
    await startDelivery(temporal.deliveries, { ...request, retryDelaysMs: [] });
    expect((await deliveryOutcome(temporal.client.workflow.getHandle(deliveryWorkflowId(flowId, request.eventId)))).status).toBe('failed');
  }
  // Back, and slow to answer: the batch is over (every resend started) before its resends are
  // delivered, and the screen follows them still.
  receiver.respondWith(inbox, [{ status: 200, delayMs: 3_000 }]);
  return flowId;
}

describe.each(SCREEN_RUNS)('resending the failed deliveries ($viewport, $language)', ({ viewport, width, height, language }) => {
  let words: typeof RecoveryWords;
  let delivered: string;
  const screen = (label: string) => `${viewport}-${language}-${label}`;

  beforeAll(async () => {
    const loaded = await appMessages(language as Language);
    words = loaded.recovery as typeof RecoveryWords;
    delivered = (loaded.deliveries as { statuses: { delivered: string } }).statuses.delivered;
    await page.setViewportSize({ width, height });
    await page.goto(`${api.baseUrl}/admin/#/flows`);
    await page.evaluate(`localStorage.setItem('shopflow.language', '${language}')`);
    await page.reload();
  });

  it('starts a batch at the chosen pace and shows it find, resend and deliver every failed delivery', async () => {
    const flowId = await flowWithFailures(`Đơn sang kế toán ${viewport}-${language}`, 3);
    await page.goto(`${api.baseUrl}/admin/#/flows/${flowId}/history`);
    const section = page.getByRole('region', { name: words.title });
    await section.getByRole('button', { name: words.start }).waitFor();
    await checkScreen(page, screen('recovery-form'));
    await expectSpoken(page, language);

    const starts: string[] = [];
    page.on('request', (sent) => {
      if (sent.method() === 'POST' && sent.url().endsWith('/recovery')) starts.push(sent.postData() ?? '');
    });
    await section.getByLabel(words.perMinute).fill('601');
    // Over the field's maximum: the browser's own check refuses it.
    expect(
      await section
        .getByLabel(words.perMinute)
        .evaluate((input) => (input as { validity?: { rangeOverflow: boolean } }).validity?.rangeOverflow),
    ).toBe(true);
    await section.getByRole('button', { name: words.start }).click();

    await section.getByLabel(words.perMinute).fill('120');
    await section.getByRole('button', { name: words.start }).click();
    await section.getByRole('status').filter({ hasText: words.started }).waitFor();
    // The browser refused the pace over the cap before anything was sent: the one start is at 120.
    expect(starts.map((body) => (JSON.parse(body) as { perMinute: number }).perMinute)).toEqual([120]);
    const progress = section.getByTestId('recovery');
    await progress.getByText(words.states.done, { exact: true }).waitFor({ timeout: 20_000 });
    await expect.poll(() => progress.locator('[data-count=delivered]').textContent(), { timeout: 20_000 }).toBe('3');
    expect(await progress.locator('[data-count=found]').textContent()).toBe('3');
    expect(await progress.locator('[data-count=stillFailing]').textContent()).toBe('0');
    expect(await progress.getByText(shown(words.batch)).textContent()).toMatch(/\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}.*120/);
    // The history below follows: each resent delivery shows delivered.
    const deliveredRows = page.getByTestId('delivery').filter({ has: page.getByText(delivered, { exact: true }) });
    await expect.poll(() => deliveredRows.count(), { timeout: 10_000 }).toBe(3);
    await checkScreen(page, screen('recovery-done'));
    await expectSpoken(page, language);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);

    // Started again: the same time is the same batch, already over, so it runs again and finds nothing left.
    await section.getByRole('button', { name: words.start }).click();
    await expect.poll(() => progress.locator('[data-count=found]').textContent(), { timeout: 10_000 }).toBe('0');
  });
});
