import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import type { AdminRequest } from '../support/admin-session.js';
import { checkScreen } from '../support/browser.js';
import { useSuite } from '../support/suite.js';
import type { flows as FlowWords } from '../../web/src/i18n/vi/flows.js';
import type { conditions as ConditionWords } from '../../web/src/i18n/vi/conditions.js';
import { appMessages, expectSpoken, openAdminApp, SCREEN_RUNS, shown, type Language } from './app-words.js';

/**
 * Issue 32, the flow builder's Trigger of several event types and its Condition block in a real
 * Chromium, on the real API and engine, in Vietnamese and English, on a desktop and a phone: built on
 * the canvas and saved as built, refused beside the rule the server names, test-run rule by rule.
 */
const { db, api, shop, receiver } = useSuite({ api: { secureCookies: false }, shop: true, receiver: true, worker: true });
let page: Page;
let admin: AdminRequest;
openAdminApp({ db, api, shop }, (app) => ({ page, admin } = app));

interface Flow {
  id: string;
  name: string;
  eventType: string;
  eventTypes: string[];
  condition: unknown;
  permissions: string[];
}

async function newFlow(body: Record<string, unknown>): Promise<Flow> {
  const response = await admin('POST', '/flows', { url: receiver.url(`cond-${randomUUID()}`), ...body });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { flow: Flow }).flow;
}

const flowNamed = async (id: string) => (await (await admin('GET', `/flows/${id}`)).json()) as Flow;

/** Nothing on the screen is wider than the window: no sideways scrolling, on a phone either. */
async function expectNoSidewaysScroll(): Promise<void> {
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
}

/** The text that describes a control (its hint or error), as assistive technology reads it. */
async function describedBy(control: Locator): Promise<string | null> {
  const ids = (await control.getAttribute('aria-describedby')) ?? '';
  return ids ? page.locator(`[id="${ids}"]`).textContent() : null;
}

describe.each(SCREEN_RUNS)('the Condition block and a Trigger of several event types ($viewport, $language)', (run) => {
  const { viewport, width, height, language } = run;
  let flows: typeof FlowWords;
  let conditions: typeof ConditionWords;
  const name = (label: string) => `${label} ${viewport}-${language}`;
  const screen = (label: string) => `${viewport}-${language}-${label}`;
  const open = (route: string) => page.goto(`${api.baseUrl}/admin/#/${route}`);
  const button = (label: string) => page.getByRole('button', { name: label, exact: true });
  const trigger = () => page.getByRole('group', { name: flows.canvas.trigger });
  const eventType = (code: string) => trigger().getByRole('checkbox', { name: new RegExp(`${code.replace('.', '\\.')}$`) });
  const block = () => page.getByRole('group', { name: conditions.block });
  const rule = (number: number) => block().getByRole('group', { name: conditions.rule.replace('{{number}}', String(number)), exact: true });
  const control = (number: number, label: string) => rule(number).getByLabel(label, { exact: true });
  const fixFields = () => page.getByRole('alert').filter({ hasText: flows.builder.fixFields });

  beforeAll(async () => {
    const words = await appMessages(language as Language);
    flows = words.flows as typeof FlowWords;
    conditions = words.conditions as typeof ConditionWords;
    await page.setViewportSize({ width, height });
    await open('flows');
    await page.evaluate(`localStorage.setItem('shopflow.language', '${language}')`);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: flows.list.title }).waitFor();
  });

  it('builds a flow of three event types with a two-rule condition on the canvas; saved as built, a reload shows it', async () => {
    await open('flows/new');
    await page.getByLabel(flows.builder.name, { exact: true }).fill(name('Đơn đã gửi đi, giá trị lớn'));
    expect(await eventType('order.created').isChecked()).toBe(true);
    await eventType('order.status_changed').check();
    await eventType('shipment.status_changed').check();
    expect(await block().count()).toBe(0);
    await button(conditions.add).click();
    await control(1, conditions.field).selectOption('changes.status.to');
    await control(1, conditions.operator).selectOption('in');
    await control(1, conditions.values).fill('shipped, delivered');
    await button(conditions.addRule).click();
    await control(2, conditions.field).selectOption('data.totalAmount');
    await control(2, conditions.operator).selectOption('gte');
    await control(2, conditions.value).fill('1000000');
    // A field of the orders only: the shipments' events fail it, and the screen says so.
    expect(await describedBy(control(2, conditions.field))).toMatch(shown(conditions.onlyIn));
    await page.getByRole('group', { name: flows.canvas.httpSend }).getByLabel(flows.canvas.address).fill(receiver.url('conditions'));
    await checkScreen(page, screen('flow-condition-canvas'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();

    await button(flows.builder.save).click();
    await expect.poll(() => page.url()).toMatch(/#\/flows\/[0-9a-f-]{36}$/);
    const flowId = /#\/flows\/([0-9a-f-]{36})$/.exec(page.url())![1]!;
    expect(await flowNamed(flowId)).toMatchObject({
      eventType: 'order.created',
      eventTypes: ['order.created', 'order.status_changed', 'shipment.status_changed'],
      condition: {
        match: 'all',
        rules: [
          { path: 'changes.status.to', operator: 'in', value: ['shipped', 'delivered'] },
          { path: 'data.totalAmount', operator: 'gte', value: '1000000' },
        ],
      },
      permissions: ['pos.orders.read', 'pos.shipping.read'],
    });

    await page.reload();
    await rule(2).waitFor();
    for (const code of ['order.created', 'order.status_changed', 'shipment.status_changed'])
      expect(await eventType(code).isChecked()).toBe(true);
    expect(await eventType('customer.created').isChecked()).toBe(false);
    expect(await control(1, conditions.field).inputValue()).toBe('changes.status.to');
    expect(await control(1, conditions.operator).inputValue()).toBe('in');
    expect(await control(1, conditions.values).inputValue()).toBe('shipped, delivered');
    expect(await control(2, conditions.operator).inputValue()).toBe('gte');
    expect(await control(2, conditions.value).inputValue()).toBe('1000000');
    expect(await page.getByText(flows.builder.unsaved, { exact: true }).count()).toBe(0);

    // The flows list names the first type and counts the others; their codes beside.
    await open('flows');
    const row = page.locator('tr', { hasText: name('Đơn đã gửi đi, giá trị lớn') });
    await row.getByText(shown(flows.list.moreTypes.replace('{{count}}', '2'))).waitFor();
    expect(await row.locator('code').textContent()).toBe('order.created, order.status_changed, shipment.status_changed');
    await checkScreen(page, screen('flows-several-types'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();
  });

  it('checks the rules before saving, and shows the server’s refusal of a field the event types lack beside its rule, saving nothing', async () => {
    const flow = await newFlow({ name: name('Đơn lớn'), eventTypes: ['order.created'] });
    await open(`flows/${flow.id}`);
    await button(conditions.add).click();
    await button(flows.builder.save).click();
    await expect.poll(() => describedBy(control(1, conditions.field))).toBe(conditions.errors.fieldRequired);
    await fixFields().waitFor();
    await control(1, conditions.field).selectOption('data.totalAmount');
    await control(1, conditions.operator).selectOption('gte');
    await control(1, conditions.value).fill('');
    await button(flows.builder.save).click();
    await expect.poll(() => describedBy(control(1, conditions.value))).toBe(conditions.errors.valueRequired);
    await control(1, conditions.value).fill('1000000');

    // Customers' events have no total amount: the rule no longer fits once the trigger is theirs.
    await eventType('customer.created').check();
    await eventType('order.created').uncheck();
    await button(flows.builder.save).click();
    await expect.poll(() => describedBy(control(1, conditions.field))).toBe(conditions.refused.path);
    await fixFields().waitFor();
    expect(await control(1, conditions.field).getAttribute('aria-invalid')).toBe('true');
    await checkScreen(page, screen('flow-condition-refused'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();
    expect(await flowNamed(flow.id)).toMatchObject({ eventTypes: ['order.created'], condition: null, permissions: ['pos.orders.read'] });

    // Another field, and the refusal is gone; so is the block, once removed, and the flow saves.
    await control(1, conditions.field).selectOption('data.primaryPhone');
    expect(await describedBy(control(1, conditions.field))).not.toBe(conditions.refused.path);
    await button(conditions.remove).click();
    expect(await block().count()).toBe(0);
    await button(flows.builder.save).click();
    await page
      .getByRole('status')
      .filter({ hasText: shown(flows.builder.savedAt) })
      .waitFor();
    expect(await flowNamed(flow.id)).toMatchObject({ eventTypes: ['customer.created'], condition: null });
  });

  it('shows beside its field the refusal of a rule that would test too many values of one event, saving nothing', async () => {
    const flow = await newFlow({ name: name('Từ khoá'), eventTypes: ['product.updated'] });
    await open(`flows/${flow.id}`);
    await button(conditions.add).click();
    // Every keyword of every variant: 40,960 values a rule on a product of 2,048 variants; the fourth is one too many.
    for (const number of [1, 2, 3, 4]) {
      if (number > 1) await button(conditions.addRule).click();
      await control(number, conditions.field).selectOption('data.variants.keywords');
      await control(number, conditions.operator).selectOption('eq');
      await control(number, conditions.value).fill(`áo ${number}`);
    }
    await button(flows.builder.save).click();
    await expect.poll(() => describedBy(control(4, conditions.field))).toBe(conditions.refused.cost);
    expect(await control(4, conditions.field).getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(control(3, conditions.field))).not.toBe(conditions.refused.cost);
    await checkScreen(page, screen('flow-condition-too-costly'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();
    expect(await flowNamed(flow.id)).toMatchObject({ condition: null });
  });

  it('test-runs the drafted condition on the event type chosen among the flow’s, and says rule by rule whether it passes', async () => {
    const flow = await newFlow({
      name: name('Đơn xác nhận'),
      eventTypes: ['order.created', 'order.status_changed'],
      condition: {
        match: 'all',
        rules: [
          { path: 'data.totalAmount', operator: 'gte', value: '1000000' },
          { path: 'changes.status.to', operator: 'eq', value: 'confirmed' },
        ],
      },
    });
    await open(`flows/${flow.id}`);
    const testType = page.getByLabel(conditions.testType, { exact: true });
    await testType.selectOption('order.status_changed');
    const verdictRules = page.getByTestId('verdict-rule');
    const held = async () => (await verdictRules.evaluateAll((items) => items.map((item) => item.className))) as string[];

    // The example order (480,000 ₫, now confirmed): the amount fails, the new status holds; all: skipped.
    await button(flows.builder.testRun).click();
    await expect(page.getByTestId('verdict').textContent()).resolves.toBe(conditions.verdict.skipped);
    expect(await held()).toEqual(['failed', 'held']);
    expect(await page.getByTestId('test-run-request').textContent()).toContain('order.status_changed');
    await checkScreen(page, screen('flow-condition-verdict'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();

    // Any of the rules, on screen and unsaved: the same event passes.
    await block().getByLabel(conditions.match.any, { exact: true }).check();
    await button(flows.builder.testRun).click();
    await expect(page.getByTestId('verdict').textContent()).resolves.toBe(conditions.verdict.passes);
    expect(await held()).toEqual(['failed', 'held']);

    // A new order changes no status: neither rule holds.
    await testType.selectOption('order.created');
    expect(await page.getByTestId('verdict').count()).toBe(0);
    await button(flows.builder.testRun).click();
    await expect(page.getByTestId('verdict').textContent()).resolves.toBe(conditions.verdict.skipped);
    expect(await held()).toEqual(['failed', 'failed']);
    expect(await page.getByTestId('test-run-request').textContent()).toContain('"type":"order.created"');
    expect((await flowNamed(flow.id)).condition).toMatchObject({ match: 'all' });
  });
});
