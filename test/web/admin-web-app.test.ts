import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_PASSWORD as PASSWORD, addAdminAndViewer } from '../support/admin-session.js';
import { builtAssetSizes, checkScreen, launchChromium, SCREENSHOTS } from '../support/browser.js';
import { useSuite } from '../support/suite.js';
import { displayPrefix } from '../../domain/access/api-key-format.js';

/** The admin web app in a real Chromium, served by the API from web/dist (`npm test` builds it first). */
const { db, api, shop, receiver, chat, request, get } = useSuite({
  api: { secureCookies: false },
  shop: true,
  receiver: true,
  worker: true,
  relay: { retryDelaysMs: [200] },
  chat: true,
});
let browser: Browser;
let page: Page;
let flowId: string;

beforeAll(async () => {
  await addAdminAndViewer(db.app, shop.shopId);
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: api.baseUrl });
  page = await context.newPage();
});

afterAll(async () => {
  await browser?.close();
});

async function logIn(on: Page, email: string): Promise<void> {
  await on.goto(`${api.baseUrl}/admin/`);
  await on.getByLabel('Shop').fill(shop.slug);
  await on.getByLabel('E-mail').fill(email);
  await on.getByLabel('Password').fill(PASSWORD);
  await on.getByRole('button', { name: 'Log in' }).click();
}

describe('the admin web app', () => {
  it('loads, measured, and logs in', async () => {
    const started = Date.now();
    await page.goto(`${api.baseUrl}/admin/`);
    // Vietnamese first (test/web/admin-language.test.ts tests the languages).
    await page.getByRole('button', { name: 'Đăng nhập' }).waitFor();
    const firstLoadMs = Date.now() - started;
    const timing = await page.evaluate<string>("JSON.stringify(performance.getEntriesByType('navigation')[0])");
    const sizes = builtAssetSizes();
    writeFileSync(
      join(SCREENSHOTS, '..', 'web-first-load.json'),
      JSON.stringify({ firstLoadMs, sizes, navigation: JSON.parse(timing) }, null, 2),
    );
    console.log(`admin web app first load: ${firstLoadMs} ms to the login form; JS+CSS ${sizes.rawBytes} B, ${sizes.gzipBytes} B gzipped`);
    // In English from here: these tests are not about the language.
    await page.evaluate("localStorage.setItem('shopflow.language', 'en')");
    await page.reload();
    await checkScreen(page, 'login');
    await logIn(page, 'admin@shop.test');
    await page.getByRole('heading', { name: 'Flows' }).waitFor();
    await page.getByText('No flows yet.').waitFor();
    await checkScreen(page, 'flows-empty');
  });

  it('builds a flow on the canvas and test-runs it against the HTTPS receiver', async () => {
    // In English: these tests are not about the language (test/web/admin-flow-builder.test.ts is, in both).
    await page.evaluate("localStorage.setItem('shopflow.language', 'en')");
    await page.reload();
    await page.getByRole('link', { name: 'New flow' }).click();
    await page.getByLabel('Flow name').fill('Products to ERP');
    const trigger = page.getByRole('group', { name: 'Trigger block' });
    await trigger.getByRole('checkbox', { name: /product\.created$/ }).check();
    await trigger.getByRole('checkbox', { name: /order\.created$/ }).uncheck();
    await page.getByRole('group', { name: 'HTTP-send block' }).getByLabel('HTTPS address').fill(receiver.url('browser'));
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('shown-once').textContent()).resolves.toMatch(/^whsec_/);
    flowId = /#\/flows\/([0-9a-f-]{36})/.exec(page.url())![1]!;
    await checkScreen(page, 'flow-builder');

    await page.getByRole('button', { name: 'Test-run' }).click();
    await expect(page.getByTestId('test-run-status').textContent()).resolves.toBe('200');
    const sent = await page.getByTestId('test-run-request').textContent();
    expect(sent).toContain(`POST ${receiver.url('browser')}`);
    expect(sent).toMatch(/webhook-signature: v1,/);
    expect(receiver.received('browser')).toHaveLength(1);
    await checkScreen(page, 'flow-test-run');
  });

  it('switches the flow on, and a product created through the Open API shows in its history with a Temporal link', async () => {
    await page.getByRole('button', { name: 'Switch on' }).click();
    await page.getByRole('button', { name: 'Switch off' }).waitFor();
    const { key } = await shop.newKey(['pos.products.create', 'pos.products.read']);
    const created = await request('POST', '/products', { key, body: { name: 'Áo khoác', variants: [{ price: '300000' }] } });
    expect(created.status).toBe(201);
    await receiver.waitFor('browser', 2);

    await page.getByRole('link', { name: 'Delivery history' }).click();
    const live = page.getByTestId('delivery').filter({ hasNotText: 'test-run' }).filter({ hasText: 'product.created' });
    await live.filter({ hasText: 'delivered' }).waitFor({ timeout: 20_000 });
    await expect(live.getByRole('link', { name: 'See in Temporal' }).getAttribute('href')).resolves.toMatch(
      /^http:\/\/127\.0\.0\.1:8233\/namespaces\/default\/workflows\/delivery/,
    );
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No deliveries match.').waitFor();
    await page.getByLabel('Status').selectOption('');
    await checkScreen(page, 'delivery-history');
    await page.getByRole('link', { name: 'Flows' }).click();
    await page.getByRole('cell', { name: /delivered/i }).waitFor();
    await checkScreen(page, 'flows');
  });

  it('creates an API connection whose copied key calls GET /shop, then rotates and revokes it', async () => {
    await page.getByRole('link', { name: 'API connections' }).click();
    await page.getByText('Create a connection application').click();
    await page.getByLabel('Application name').fill('Warehouse robot');
    await page
      .getByRole('group', { name: /pos\.products$/ })
      .getByLabel('pos.products.read')
      .check();
    await page.getByRole('button', { name: 'Create and show its key' }).click();
    const shown = page.getByTestId('shown-once');
    await expect(shown.textContent()).resolves.toMatch(/^svc_live_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('button', { name: 'Copied' }).waitFor();
    const key = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(key).toBe(await shown.textContent());
    expect((await get('/shop', key)).status).toBe(200);
    await checkScreen(page, 'connections');

    const application = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Warehouse robot' }) });
    await application.getByLabel('Overlap (hours)').fill('0');
    await application.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate key' }).click();
    await page.getByText('New key of Warehouse robot').waitFor();
    const rotated = (await shown.textContent())!;
    expect(rotated).not.toBe(key);
    expect((await get('/shop', key)).status).toBe(401);
    expect((await get('/shop', rotated)).status).toBe(200);

    // The new key's own button: until the list is read again the old key's row, still live there,
    // has a Revoke button too, whose dialog goes with its row when the list comes back.
    await application.getByRole('button', { name: `Revoke key ${displayPrefix(rotated)}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await application.getByRole('cell', { name: 'revoked' }).waitFor();
    expect((await get('/shop', rotated)).status).toBe(401);
  });

  it('sets up the shop', async () => {
    await page.getByRole('link', { name: 'Shop set-up' }).click();
    const tags = page.getByRole('region', { name: 'Order tags' });
    await tags.getByLabel('Name').fill('VIP');
    await tags.getByRole('button', { name: 'Add', exact: true }).click();
    await tags.getByText('Added “VIP”.').waitFor();
    const move = page.getByRole('group', { name: /From “New”/ }).getByLabel('Confirmed');
    await move.click();
    await expect.poll(() => move.isChecked()).toBe(false);
    await checkScreen(page, 'setup');
  });

  it('links a chat page once the platform confirms the token, and unlinks it after confirmation', async () => {
    const chatPages = page.getByRole('region', { name: 'Chat pages' });
    await chatPages.getByLabel('Page name').fill('Fanpage');
    await chatPages.getByRole('button', { name: 'Add page' }).click();
    await chatPages.getByRole('option', { name: 'Fanpage' }).waitFor({ state: 'attached' });
    const platform = chat.platform.createPage({ name: 'Fanpage' });
    await chatPages.getByLabel('Page', { exact: true }).selectOption({ label: 'Fanpage' });
    await chatPages.getByLabel('Platform page id').fill(platform.page.id);
    await chatPages.getByLabel('Page access token').fill(chat.platform.createPage({ name: 'Another page' }).accessToken);
    await chatPages.getByRole('button', { name: 'Link page' }).click();
    await chatPages.getByText('The chat platform does not accept this access token for that page.').waitFor();
    await chatPages.getByLabel('Page access token').fill(platform.accessToken);
    await chatPages.getByRole('button', { name: 'Link page' }).click();
    await chatPages.getByText('connected', { exact: true }).waitFor();

    await chatPages.getByRole('button', { name: 'Unlink Fanpage' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Unlink' }).click();
    await chatPages.getByText('not connected', { exact: true }).waitFor();
    expect(await db.admin`select page_id from chat_page_links where platform_page_id = ${platform.page.id}`).toEqual([]);
  });

  it('works at a phone width', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${api.baseUrl}/admin/#/flows/${flowId}`);
    await page.getByRole('group', { name: 'HTTP-send block' }).waitFor();
    await checkScreen(page, 'phone-flow-builder');
    await page.goto(`${api.baseUrl}/admin/#/flows`);
    await page.getByRole('link', { name: 'Products to ERP', exact: true }).waitFor();
    await checkScreen(page, 'phone-flows');
  });

  it('shows a viewer the flow without a way to change it, nor the sent content they may not read', async () => {
    // One browser context (the packaged Chromium runs single-process): log out, then in as the viewer.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    const viewerPage = page;
    await logIn(viewerPage, 'viewer@shop.test');
    await viewerPage.getByRole('heading', { name: 'Flows' }).waitFor();
    await expect(viewerPage.getByRole('link', { name: 'New flow' }).count()).resolves.toBe(0);
    await expect(viewerPage.getByRole('link', { name: 'API connections' }).count()).resolves.toBe(0);
    await viewerPage.getByRole('link', { name: 'Products to ERP', exact: true }).click();
    await viewerPage.getByText('You may view flows').waitFor();
    await expect(viewerPage.getByLabel('Flow name').isDisabled()).resolves.toBe(true);
    await expect(viewerPage.getByLabel('HTTPS address').isDisabled()).resolves.toBe(true);
    await expect(viewerPage.getByRole('button', { name: 'Save' }).count()).resolves.toBe(0);
    await checkScreen(viewerPage, 'viewer-flow');
    await viewerPage.getByRole('link', { name: 'Delivery history' }).click();
    const delivery = viewerPage.getByTestId('delivery').first();
    await delivery.getByText('Attempts and content').click();
    await delivery.getByText('The sent data is hidden').waitFor();
    await expect(delivery.locator('pre').count()).resolves.toBe(0);
    await checkScreen(viewerPage, 'viewer-history');
  });
});
