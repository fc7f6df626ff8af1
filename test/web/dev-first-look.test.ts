import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';
import { DEMO_OWNER, DEMO_SHOP_SLUG } from '../../scripts/seed/demo-shop.js';
import { checkScreen, launchChromium } from '../support/browser.js';
import { devReady, endDevRuns, interrupt, startDev } from '../support/dev-runs.js';
import { testOutboundPolicy } from '../support/receiver.js';

/**
 * What a newcomer sees first (issue 48): `npm run dev` freshly started (the web app's dev server with
 * no dependency cache, as in a fresh clone), the demo owner opens a flow that has delivered, in
 * Vietnamese, and its health charts draw on their first load. The browser keeps the machine's own
 * language: under `LANG=C.UTF-8` Chromium reports "en-US@posix", which Intl refuses and which made
 * uPlot fail as it loaded (patches/uplot+1.6.32.patch).
 */
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await endDevRuns();
}, 120_000);

const line = (output: string, pattern: RegExp) => pattern.exec(output)![1]!;

describe('a freshly started npm run dev', () => {
  it("draws a flow's health charts on the first load of its screen", { timeout: 600_000 }, async () => {
    const run = startDev({
      PORT: '24500',
      WEB_PORT: '24510',
      WEBHOOK_RECEIVER_PORT: '24520',
      CARRIER_A_PORT: '24530',
      CARRIER_B_PORT: '24531',
      CHAT_PLATFORM_PORT: '24540',
      SHOPFLOW_VITE_CACHE_DIR: mkdtempSync(join(tmpdir(), 'shopflow-vite-')),
    });
    const output = await devReady(run);
    const web = line(output, /Admin web app\s+(http:\/\/localhost:\d+\/admin\/)/);
    const api = line(output, /API base URL\s+(http:\/\/localhost:\d+)/);
    const receiver = line(output, /Webhook receiver\s+(https:\/\/localhost:\d+)/);
    const key = line(output, /Demo API key\s+(\S+)/);

    // A flow of the demo shop, on, and one customer delivered to it.
    const login = await fetch(`${api}/api/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ shop: DEMO_SHOP_SLUG, email: DEMO_OWNER.email, password: DEMO_OWNER.password }),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const { csrfToken } = (await login.json()) as { csrfToken: string };
    const inbox = `first-look-${randomUUID()}`;
    const created = await fetch(`${api}/api/admin/flows`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Khách hàng mới sang CRM', eventType: 'customer.created', url: `${receiver}/${inbox}`, state: 'on' }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { flow } = (await created.json()) as { flow: { id: string } };
    const customer = await fetch(`${api}/api/open/v1/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Nguyễn Văn An' }),
    });
    expect(customer.status).toBe(201);
    const agent = createOutboundAgent(testOutboundPolicy());
    await expect
      .poll(
        async () => {
          const { body } = await request(`${receiver}/_inbox/${inbox}`, { dispatcher: agent });
          return ((await body.json()) as unknown[]).length;
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(1);
    await agent.close();

    browser = await launchChromium();
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const failed: string[] = [];
    page.on('requestfailed', (failure) => failed.push(failure.url()));
    await page.goto(web);
    await page.getByLabel('Mã cửa hàng').fill(DEMO_SHOP_SLUG);
    await page.getByLabel('Email').fill(DEMO_OWNER.email);
    await page.getByLabel('Mật khẩu').fill(DEMO_OWNER.password);
    await page.getByRole('button', { name: 'Đăng nhập' }).click();
    await page.getByLabel('Mật khẩu').waitFor({ state: 'detached' });
    await page.goto(`${web}#/flows/${flow.id}`);
    const health = page.locator('section.flow-health');
    await expect.poll(() => health.locator('canvas').count(), { timeout: 60_000 }).toBe(2);
    expect(await health.getByText('Không tải được biểu đồ').count()).toBe(0);
    expect(failed).toEqual([]);
    await checkScreen(page, 'dev-first-look-flow-health');
    expect(await interrupt(run)).toEqual([]);
  });
});
