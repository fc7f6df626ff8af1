import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { AdminRequest } from '../support/admin-session.js';
import { checkScreen } from '../support/browser.js';
import { useSuite } from '../support/suite.js';
import type { flows as FlowWords } from '../../web/src/i18n/vi/flows.js';
import type { events as EventWords } from '../../web/src/i18n/vi/events.js';
import { appMessages, expectSpoken, openAdminApp, SCREEN_RUNS, shown, type Language } from './app-words.js';

/**
 * Issue 31, the flow builder and the flows list in a real Chromium, in Vietnamese and English, on a
 * desktop and a phone: what is on screen is what is tested, a saved flow is never lost to a new one,
 * a flow stopped by a 410 says so, addresses are refused beside the field, in plain words.
 */
const { db, api, shop, receiver } = useSuite({ api: { secureCookies: false }, shop: true, receiver: true, worker: true });
let page: Page;
let admin: AdminRequest;
openAdminApp({ db, api, shop }, (app) => ({ page, admin } = app));

interface Flow {
  id: string;
  name: string;
  url: string;
  state: string;
  httpEnabled: boolean;
  permissions: string[];
}

async function newFlow(body: Record<string, unknown>): Promise<Flow> {
  const response = await admin('POST', '/flows', { eventType: 'order.created', ...body });
  expect(response.status).toBe(201);
  return ((await response.json()) as { flow: Flow }).flow;
}

const flowNamed = async (id: string) => (await (await admin('GET', `/flows/${id}`)).json()) as Flow;
const allFlows = async () => ((await (await admin('GET', '/flows?limit=100')).json()) as { data: Flow[] }).data;

/** Nothing on the screen is wider than the window: no sideways scrolling, on a phone either. */
async function expectNoSidewaysScroll(): Promise<void> {
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
}

describe.each(SCREEN_RUNS)('the flow builder ($viewport, $language)', ({ viewport, width, height, language }) => {
  let flows: typeof FlowWords;
  let events: typeof EventWords;
  const name = (label: string) => `${label} ${viewport}-${language}`;
  const screen = (label: string) => `${viewport}-${language}-${label}`;
  const open = async (route: string) => {
    await page.goto(`${api.baseUrl}/admin/#/${route}`);
  };
  const nameField = () => page.getByLabel(flows.builder.name, { exact: true });
  const addressField = () => page.getByRole('group', { name: flows.canvas.httpSend }).getByLabel(flows.canvas.address);
  const button = (label: string) => page.getByRole('button', { name: label, exact: true });
  const status = (text: string) => page.getByRole('status').filter({ hasText: shown(text) });

  beforeAll(async () => {
    const words = await appMessages(language as Language);
    flows = words.flows as typeof FlowWords;
    events = words.events as typeof EventWords;
    await page.setViewportSize({ width, height });
    await open('flows');
    // The person's choice of language, kept in the browser (Vietnamese when none was made).
    await page.evaluate(`localStorage.setItem('shopflow.language', '${language}')`);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: flows.list.title }).waitFor();
  });

  it('turns the screen of a new flow, once saved, into that flow’s; a new flow again is an empty form that creates another', async () => {
    const before = (await allFlows()).length;
    await open('flows/new');
    await nameField().fill(name('Đơn sang ERP'));
    await addressField().fill(receiver.url(`erp-${randomUUID()}`));
    await button(flows.builder.save).click();
    await expect.poll(() => page.url()).toMatch(/#\/flows\/[0-9a-f-]{36}$/);
    const savedId = /#\/flows\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    await page.getByRole('heading', { level: 1, name: name('Đơn sang ERP') }).waitFor();
    await expect(page.getByTestId('shown-once').textContent()).resolves.toMatch(/^whsec_/);
    await status(flows.builder.savedAt).waitFor();
    await checkScreen(page, screen('flow-builder-saved'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();

    // As the "new flow" link does: the address changes, the screen is a new, empty form.
    await page.evaluate("window.location.hash = '#/flows/new'");
    await page.getByRole('heading', { level: 1, name: flows.builder.newTitle }).waitFor();
    expect(await nameField().inputValue()).toBe('');
    expect(await addressField().inputValue()).toBe('');
    expect(await page.getByTestId('shown-once').count()).toBe(0);
    await nameField().fill(name('Khách sang CRM'));
    await addressField().fill(receiver.url(`crm-${randomUUID()}`));
    await button(flows.builder.save).click();
    await expect.poll(() => page.url()).toMatch(/#\/flows\/[0-9a-f-]{36}$/);
    expect(page.url()).not.toContain(savedId);
    expect((await allFlows()).length).toBe(before + 2);
    expect((await flowNamed(savedId)).name).toBe(name('Đơn sang ERP'));
  });

  it('test-runs what is on screen, unsaved; marks unsaved changes; confirms a save; drops an old result once edited or saved', async () => {
    const saved = receiver.url(`saved-${randomUUID()}`);
    const onScreen = `screen-${randomUUID()}`;
    const flow = await newFlow({ name: name('Đơn chạy thử'), url: saved });
    await open(`flows/${flow.id}`);
    await addressField().fill(receiver.url(onScreen));
    await page.getByText(flows.builder.unsaved, { exact: true }).waitFor();
    await button(flows.builder.testRun).click();
    await expect(page.getByTestId('test-run-status').textContent()).resolves.toBe('200');
    expect(await page.getByTestId('test-run-request').textContent()).toContain(`POST ${receiver.url(onScreen)}`);
    expect(receiver.received(onScreen)).toHaveLength(1);
    expect(receiver.received(new URL(saved).pathname)).toHaveLength(0);
    await checkScreen(page, screen('flow-test-run'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();

    await nameField().fill(name('Đơn chạy thử, sửa'));
    await expect.poll(() => page.getByTestId('test-run-status').count()).toBe(0);
    await button(flows.builder.testRun).click();
    await page.getByTestId('test-run-status').waitFor();
    await button(flows.builder.save).click();
    await status(flows.builder.savedAt).waitFor();
    expect(await page.getByTestId('test-run-status').count()).toBe(0);
    expect(await page.getByText(flows.builder.unsaved, { exact: true }).count()).toBe(0);
    expect(await flowNamed(flow.id)).toMatchObject({ url: receiver.url(onScreen), name: name('Đơn chạy thử, sửa') });
  });

  it('says beside each field, in plain words, what is wrong; refuses a private address on save as a delivery would', async () => {
    const before = (await allFlows()).length;
    await open('flows/new');
    await addressField().fill('http://example.com/hook');
    await button(flows.builder.save).click();
    await page.getByText(flows.errors.nameRequired).waitFor();
    const describedBy = async (field: ReturnType<typeof nameField>) =>
      page.locator(`[id="${await field.getAttribute('aria-describedby')}"]`).textContent();
    expect(await describedBy(nameField())).toBe(flows.errors.nameRequired);
    expect(await describedBy(addressField())).toBe(flows.errors.urlNotHttps);
    await checkScreen(page, screen('flow-builder-errors'));
    await expectSpoken(page, language);

    await nameField().fill(name('Địa chỉ nội bộ'));
    await addressField().fill('not an address');
    expect(await describedBy(addressField())).toBe(flows.errors.urlInvalid);
    await addressField().fill('https://10.0.0.1/x');
    await button(flows.builder.save).click();
    await expect.poll(() => describedBy(addressField())).toBe(flows.errors.urlNotPublic);
    const text = await page.locator('main').innerText();
    expect(text).not.toMatch(/Invalid URL|Too small|expected string|url:/);
    expect((await allFlows()).length).toBe(before);
    await expectNoSidewaysScroll();
  });

  it('drops, when the trigger changes, the permissions the flow no longer needs', async () => {
    const flow = await newFlow({ name: name('Đổi sự kiện'), url: receiver.url('trigger') });
    expect(flow.permissions).toEqual(['pos.orders.read']);
    await open(`flows/${flow.id}`);
    const eventType = (code: string) =>
      page.getByRole('group', { name: flows.canvas.trigger }).getByRole('checkbox', { name: new RegExp(`${code.replace('.', '\\.')}$`) });
    await eventType('product.created').check();
    await status(flows.builder.permissionsAdded).filter({ hasText: 'pos.products.read' }).waitFor();
    await eventType('order.created').uncheck();
    await status(flows.builder.permissionsRemoved).filter({ hasText: 'pos.orders.read' }).waitFor();
    await button(flows.builder.save).click();
    await status(flows.builder.savedAt).waitFor();
    expect((await flowNamed(flow.id)).permissions).toEqual(['pos.products.read']);
  });

  it('shows a flow whose receiver answered 410 as stopped, not on, and turns its sending back on', async () => {
    const inbox = `gone-${randomUUID()}`;
    receiver.respondWith(inbox, [{ status: 410 }]);
    const flow = await newFlow({ name: name('Máy nhận đã đi'), url: receiver.url(inbox), state: 'on' });
    expect(((await (await admin('POST', `/flows/${flow.id}/test-run`)).json()) as { status: string }).status).toBe('gone');

    await open('flows');
    const row = page.locator('tr', { hasText: flow.name });
    await row.getByText(flows.states.stopped).waitFor();
    expect(await row.getByText(flows.states.on, { exact: true }).count()).toBe(0);
    await checkScreen(page, screen('flows'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();

    await row.getByRole('link', { name: flow.name, exact: true }).click();
    const banner = page.getByRole('region', { name: flows.builder.stoppedTitle });
    await banner.waitFor();
    await checkScreen(page, screen('flow-stopped'));
    await expectSpoken(page, language);
    await banner.getByRole('button', { name: flows.builder.resume }).click();
    await status(flows.builder.resumed).waitFor();
    expect(await banner.count()).toBe(0);
    expect(await flowNamed(flow.id)).toMatchObject({ state: 'on', httpEnabled: true });
  });

  it('names the order states in the status matrix and confirms each save', async () => {
    await open('setup');
    const matrix = page.getByRole('region', { name: events.matrix.title });
    const fromNew = matrix.getByRole('group', { name: shown(events.matrix.from.replace('{{state}}', events.orderStates.new)) });
    const move = fromNew.getByLabel(events.orderStates.confirmed);
    const confirmation = (entry: string) =>
      entry.replace('{{from}}', events.orderStates.new).replace('{{to}}', events.orderStates.confirmed);
    await move.click();
    await matrix
      .getByRole('status')
      .filter({ hasText: confirmation(events.matrix.removed) })
      .waitFor();
    expect(await move.isChecked()).toBe(false);
    await move.click();
    await matrix
      .getByRole('status')
      .filter({ hasText: confirmation(events.matrix.allowed) })
      .waitFor();
    expect(await move.isChecked()).toBe(true);
    expect(await fromNew.innerText()).toContain('(confirmed)');
    await checkScreen(page, screen('status-matrix'));
    await expectSpoken(matrix, language);
    await expectNoSidewaysScroll();
  });
});
