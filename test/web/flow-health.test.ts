import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ulid } from 'ulidx';
import { logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { checkScreen, launchChromium } from '../support/browser.js';
import { useSuite } from '../support/suite.js';
import { withShop } from '../../domain/kernel/index.js';
import { recordAttempt } from '../../domain/flows/index.js';
import type { health as HealthWords } from '../../web/src/i18n/vi/health.js';
import type { deliveries as DeliveryWords } from '../../web/src/i18n/vi/deliveries.js';
import type { flows as FlowWords } from '../../web/src/i18n/vi/flows.js';
import { appMessages, expectSpoken, loggedInPage, SCREEN_RUNS, shown, type Language } from './app-words.js';

/**
 * Issue 32, health at a glance in a real Chromium, in Vietnamese and English, on a desktop and a
 * phone: the flows list's sparkline of each flow's last 24 hours, and on the flow's screen its
 * figures and charts over 24 hours or 7 days, the hour-by-hour table and the last failure in words.
 */
const { db, api, shop, receiver } = useSuite({ api: { secureCookies: false }, shop: true, receiver: true });
let browser: Browser;
let page: Page;
let admin: AdminRequest;
let busy: string;
let quiet: string;

const HOUR = 3_600_000;
const now = Date.now();
/** [hours ago, status (null: no answer), answer time]: 40 sends today, 4 of them failed; 2 more two days ago. */
const SENDS: [number, number | null, number][] = [
  ...Array.from({ length: 36 }, (_, index): [number, number, number] => [index % 12, 200, 40 + index * 7]),
  [5, 503, 900],
  [3, 500, 120],
  [30, 200, 60],
  [50, 200, 75],
  [1, 503, 400],
  [0, null, 2],
];

async function newFlow(name: string): Promise<string> {
  const response = await admin('POST', '/flows', { name, eventType: 'order.created', url: receiver.url(ulid()) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { flow: { id: string } }).flow.id;
}

beforeAll(async () => {
  ({ admin } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
  busy = await newFlow('Đơn sang ERP');
  quiet = await newFlow('Khách hàng sang CRM');
  await withShop(db.app, shop.shopId, async (tx) => {
    for (const [index, [hoursAgo, statusCode, durationMs]] of SENDS.entries()) {
      const deliveryId = `msg_${ulid()}`;
      const delivery = { shopId: shop.shopId, flowId: busy, eventId: `evt_${ulid()}`, eventType: 'order.created', deliveryId };
      // The latest send (no answer: the connection was refused) is the last failure the screen words.
      const attemptedAt = new Date(now - hoursAgo * HOUR - (SENDS.length - index) * 10).toISOString();
      const verdict = statusCode === 200 ? 'delivered' : 'retry';
      const error = statusCode === null ? 'the connection was refused' : null;
      await recordAttempt(
        tx,
        { ...delivery, workflowId: `delivery:${busy}:${deliveryId}` },
        { attemptedAt, statusCode, durationMs, responseExcerpt: '', error, verdict },
      );
      // Recorded as it happens, a delivery's row is written with its attempt: created then.
      await tx`update deliveries set created_at = ${attemptedAt} where delivery_id = ${deliveryId}`;
    }
  });
  browser = await launchChromium();
  // A Vietnamese shop's browser.
  page = await loggedInPage(browser, api.baseUrl, shop.slug, 'vi-VN');
});

afterAll(async () => {
  await browser?.close();
});

describe.each(SCREEN_RUNS)('health at a glance ($viewport, $language)', ({ viewport, width, height, language }) => {
  let words: typeof HealthWords;
  let deliveries: typeof DeliveryWords;
  let flows: typeof FlowWords;
  const screen = (label: string) => `${viewport}-${language}-${label}`;
  const number = (value: number) => value.toLocaleString(language);
  // 36 of today's 40 sends went through, written as each language writes a share.
  const TODAYS_RATE = { en: '90%', vi: '90%' }[language];
  const expectNoSidewaysScroll = async () =>
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);

  beforeAll(async () => {
    const all = await appMessages(language as Language);
    words = all.health as typeof HealthWords;
    deliveries = all.deliveries as typeof DeliveryWords;
    flows = all.flows as typeof FlowWords;
    await page.setViewportSize({ width, height });
    await page.goto(`${api.baseUrl}/admin/#/flows`);
    await page.evaluate(`localStorage.setItem('shopflow.language', '${language}')`);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: flows.list.title }).waitFor();
  });

  it("shows each flow's last 24 hours as a sparkline in the flows list, its figures in words", async () => {
    const today = SENDS.filter(([hoursAgo]) => hoursAgo < 23);
    const busyLine = page.getByRole('img', {
      name: words.sparkline.label.replace('{{attempts}}', number(today.length)).replace('{{rate}}', TODAYS_RATE),
    });
    await busyLine.waitFor();
    // Twelve hours with sends: a bar each.
    expect(await busyLine.locator('rect').count()).toBe(24);
    expect(
      await busyLine.evaluate((svg) => [...svg.querySelectorAll('rect')].filter((bar) => Number(bar.getAttribute('height')) > 0).length),
    ).toBe(12);
    const quietRow = page.locator('tr', { has: page.locator(`a[href="#/flows/${quiet}"]`) });
    await quietRow.getByRole('img', { name: words.sparkline.none }).waitFor();
    await checkScreen(page, screen('flows-health'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();
  });

  it("shows the flow's health on its screen: figures, two charts, the hours as a table, the last failure, over 24 hours or 7 days", async () => {
    await page.goto(`${api.baseUrl}/admin/#/flows/${busy}`);
    const health = page.getByRole('region', { name: words.title });
    await health.waitFor();
    const figure = (term: string) => health.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd');
    const today = SENDS.filter(([hoursAgo]) => hoursAgo < 23);
    await expect.poll(() => figure(words.figures.attempts).textContent()).toBe(number(today.length));
    expect(await figure(words.figures.successRate).textContent()).toBe(TODAYS_RATE);
    expect(await figure(words.figures.p50).textContent()).toMatch(/^[\d.,]+ ms$/);
    const lastFailure = await figure(words.figures.lastFailure).textContent();
    expect(lastFailure).toContain(deliveries.failures.refused);
    expect(lastFailure).toMatch(/\d{2}\/\d{2}\/\d{4} \d{2}:\d{2}/);
    const sends = health.getByRole('img', { name: shown(words.chart.sendsLabel) });
    await sends.locator('canvas').first().waitFor();
    await health
      .getByRole('img', { name: shown(words.chart.latencyLabel) })
      .locator('canvas')
      .first()
      .waitFor();
    expect(await sends.getAttribute('aria-label')).toContain(words.range.day);
    await health.getByText(words.table.show).click();
    expect(await health.locator('tbody tr').count()).toBe(12);
    await checkScreen(page, screen('flow-health-day'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();

    await health.getByRole('button', { name: words.range.week }).click();
    expect(await health.getByRole('button', { name: words.range.week }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => figure(words.figures.attempts).textContent()).toBe(number(SENDS.length));
    expect(await sends.getAttribute('aria-label')).toContain(words.range.week);
    expect(await health.locator('tbody tr').count()).toBe(14);
    await checkScreen(page, screen('flow-health-week'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();
  });
});
