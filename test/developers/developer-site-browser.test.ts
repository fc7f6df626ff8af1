import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGES } from '../../api/routes/developers/index.js';
import { pagePath } from '../../api/routes/developers/layout.js';
import { problemBody } from '../../api/plugins/problems.js';
import { Problem, PROBLEMS, type ProblemCode } from '../../domain/kernel/index.js';
import { checkScreen, launchChromium, SCREENSHOTS } from '../support/browser.js';
import { useSuite } from '../support/suite.js';

/** The developer site in a real Chromium (issue 30: its pages and every problem `type` address, checked in a browser). */
const { api, get } = useSuite({ api: true });
let browser: Browser;
let page: Page;

beforeAll(async () => {
  browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  page = await context.newPage();
});
afterAll(async () => browser?.close());

/** A problem's `type` address, on the test server (the API's public address is `https://shopflow.test`). */
const onTestServer = (type: string) => `${api.baseUrl}${new URL(type).pathname}${new URL(type).hash}`;
/** The id of the element the address's anchor points at. */
const TARGET = "document.querySelector(':target')?.id";
const screenName = (slug: string) => `developers-${slug || 'getting-started'}`;

describe('the developer site in a browser', () => {
  it('opens every page with its heading and the guide, readable and accessible', async () => {
    for (const { slug, title } of PAGES) {
      const response = await page.goto(`${api.baseUrl}${pagePath(slug)}`);
      expect({ slug, status: response!.status() }).toEqual({ slug, status: 200 });
      expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(title);
      expect(await page.getByRole('heading', { level: 2 }).count()).toBeGreaterThan(0);
      const guide = page.getByRole('navigation', { name: 'Guide' });
      expect(await guide.getByRole('link', { name: title, exact: true }).getAttribute('aria-current')).toBe('page');
      // The stylesheet applies (the page is laid out in two columns), and the link back to the reference is there.
      expect(await page.evaluate<string>("getComputedStyle(document.querySelector('.layout')).display")).toBe('grid');
      expect(await page.getByRole('banner').getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe('/docs');
      await checkScreen(page, screenName(slug));
    }
  });

  it('follows every problem type address to its entry, what it means and what to do', async () => {
    const codes = Object.keys(PROBLEMS) as ProblemCode[];
    for (const code of codes) {
      // From another page each time: a new load of the address, not a jump within the page.
      await page.goto('about:blank');
      const response = await page.goto(onTestServer(problemBody(new Problem(code, 'x'), 'https://shopflow.test').type));
      expect({ code, status: response!.status() }).toEqual({ code, status: 200 });
      expect(await page.evaluate<string>(TARGET)).toBe(code);
      const entry = page.locator(`section[id="${code}"]`);
      expect(await entry.getByRole('heading', { level: 3 }).innerText()).toBe(`${code} ${PROBLEMS[code].status} ${PROBLEMS[code].title}`);
      expect(await entry.innerText()).toContain('What to do:');
      expect(await entry.isVisible()).toBe(true);
    }
    // A real refusal's address, as a client would follow it: the entry is scrolled to and marked.
    const { type } = (await (await get('/shop')).json()) as { type: string };
    await page.goto('about:blank');
    await page.goto(onTestServer(type));
    expect(await page.evaluate<string>(TARGET)).toBe('invalid-api-key');
    // Marked: the entry the address points at is highlighted.
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector(':target')).backgroundColor")).not.toBe('rgba(0, 0, 0, 0)');
    await page.screenshot({ path: join(SCREENSHOTS, 'developers-errors-invalid-api-key.png') });
  });

  it('shows an event’s example envelope on demand, and reads on a phone', async () => {
    await page.goto(`${api.baseUrl}${pagePath('webhooks')}#customer.updated`);
    const example = page.getByText('Example envelope of customer.updated');
    await example.click();
    expect(await page.locator('section[aria-labelledby="customer.updated"] pre').innerText()).toContain('"fields": [\n      "dateOfBirth"');
    await page.screenshot({ path: join(SCREENSHOTS, 'developers-webhooks-example.png') });

    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${api.baseUrl}${pagePath('sync')}`);
    // No sideways scrolling of the page itself on a narrow screen (code blocks scroll inside their frame).
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await checkScreen(page, 'developers-sync-phone');
  });
});
