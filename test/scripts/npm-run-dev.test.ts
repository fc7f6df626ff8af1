import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';
import { DEMO_OWNER, DEMO_SHOP_SLUG } from '../../scripts/seed/demo-shop.js';
import { checkScreen, launchChromium } from '../support/browser.js';
import { devReady, endDevRuns, interrupt, startDev, type DevRun } from '../support/dev-runs.js';
import { testOutboundPolicy } from '../support/receiver.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/**
 * `npm run dev` as a newcomer and a developer meet it, one run started for both tests (a run is about
 * half a minute of the machine's CPU). First what a newcomer sees (issue 48): the run freshly started
 * (the web app's dev server with no dependency cache, as in a fresh clone), the demo owner opens a
 * flow that has delivered, in Vietnamese, and its health charts draw on their first load. The browser
 * keeps the machine's own language: under `LANG=C.UTF-8` Chromium reports "en-US@posix", which Intl
 * refuses and which made uPlot fail as it loaded (patches/uplot+1.6.32.patch).
 *
 * Then a second run of this clone beside it, as a developer starts one: they share PostgreSQL and
 * Temporal (this suite's), and every server the second opens (API, web app, receiver, carrier and chat
 * simulators) takes the next free port. Preferred ports of their own keep both runs clear of a
 * developer's stack on the defaults, and below Linux's ephemeral range (32768 up), where a server of
 * another test listening on port 0 could take one between the choice and the listen; carrier B
 * prefers the port after carrier A's, as the defaults 3601 and 3602 do.
 */
const PREFERRED = {
  PORT: '24400',
  WEB_PORT: '24410',
  WEBHOOK_RECEIVER_PORT: '24420',
  CARRIER_A_PORT: '24430',
  CARRIER_B_PORT: '24431',
  CHAT_PLATFORM_PORT: '24440',
};
/** The summary's lines naming a server, and how to ask it whether it serves. */
const SERVERS = {
  api: { line: /API base URL\s+(http:\/\/localhost:\d+)/, probe: '/healthz' },
  web: { line: /Admin web app\s+(http:\/\/localhost:\d+)/, probe: '/admin/' },
  receiver: { line: /Webhook receiver\s+(https:\/\/localhost:\d+)/, probe: '/_inbox/probe' },
  carrierA: { line: /Carrier A \(GHN\)\s+(http:\/\/127\.0\.0\.1:\d+)/, probe: '/_control/faults' },
  carrierB: { line: /Carrier B \(GHTK\)\s+(http:\/\/127\.0\.0\.1:\d+)/, probe: '/_control/faults' },
  chat: { line: /Chat platform\s+(http:\/\/127\.0\.0\.1:\d+)/, probe: '/_control' },
};
type Server = keyof typeof SERVERS;

/** Waits for the run's summary, then reads each server's address from it. */
async function ready(run: DevRun): Promise<Record<Server, URL>> {
  const output = await devReady(run);
  return Object.fromEntries(Object.entries(SERVERS).map(([server, { line }]) => [server, new URL(line.exec(output)![1]!)])) as Record<
    Server,
    URL
  >;
}

/** The status each server answers at its address (the receiver with the local development certificate). */
async function statuses(addresses: Record<Server, URL>): Promise<Record<Server, number>> {
  const agent = createOutboundAgent(testOutboundPolicy());
  const answers = await Promise.all(
    Object.entries(SERVERS).map(async ([server, { probe }]) => {
      const status = await request(new URL(probe, addresses[server as Server]), { dispatcher: agent }).then(
        async ({ statusCode, body }) => {
          await body.dump();
          return statusCode;
        },
        () => 0,
      );
      return [server, status];
    }),
  );
  await agent.close();
  return Object.fromEntries(answers) as Record<Server, number>;
}

const serving = { api: 200, web: 200, receiver: 200, carrierA: 200, carrierB: 200, chat: 200 };

let browser: Browser | undefined;
let first: DevRun;
let firstAt: Record<Server, URL>;
beforeAll(async () => {
  first = startDev({ ...PREFERRED, SHOPFLOW_VITE_CACHE_DIR: temporaryDir('shopflow-vite') });
  firstAt = await ready(first);
}, 300_000);
// A run a failed test left: Ctrl-C, then whatever is still there.
afterAll(async () => {
  await browser?.close();
  await endDevRuns();
}, 120_000);

const line = (output: string, pattern: RegExp) => pattern.exec(output)![1]!;

describe('npm run dev', () => {
  it("draws a flow's health charts on the first load of its screen, freshly started", { timeout: 600_000 }, async () => {
    const output = first.output();
    const web = `${firstAt.web.origin}/admin/`;
    const api = firstAt.api.origin;
    const receiver = firstAt.receiver.origin;
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
  });

  it(
    'starts a second beside the first, every port of it the next free one, and each stops only its own',
    { timeout: 600_000 },
    async () => {
      const second = startDev(PREFERRED);
      const secondAt = await ready(second);

      // It says which ports it took instead, and serves on them: the simulators too.
      expect(second.output()).toMatch(
        /busy, so the next free port taken: .*carrier A 24430 → .*carrier B 24431 → .*chat platform 24440 → /,
      );
      const ports = [...Object.values(firstAt), ...Object.values(secondAt)].map((url) => url.port);
      expect(new Set(ports).size).toBe(12);
      expect(await statuses(secondAt)).toEqual(serving);
      expect(await statuses(firstAt)).toEqual(serving);

      // Ctrl-C on the second stops what it started, and the first goes on serving.
      expect(await interrupt(second)).toEqual([]);
      expect(second.output()).toContain('✓ stopped every process this command started');
      expect(await statuses(firstAt)).toEqual(serving);

      expect(await interrupt(first)).toEqual([]);
      expect(first.output()).toContain('✓ stopped every process this command started');
    },
  );
});
