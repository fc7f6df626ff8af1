import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { withShop } from '../../domain/kernel/index.js';
import { addOrder, addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import { addMember } from '../../domain/access/index.js';
import { ADMIN_PASSWORD, addAdminAndViewer, adminLogIn, type AdminRequest } from '../support/admin-session.js';
import { checkScreen, launchChromium } from '../support/browser.js';
import { useSuite } from '../support/suite.js';
import type { common as CommonWords } from '../../web/src/i18n/vi/common.js';
import type { connections as ConnectionWords } from '../../web/src/i18n/vi/connections.js';
import type { problems as ProblemWords } from '../../web/src/i18n/vi/problems.js';
import type { setup as SetupWords } from '../../web/src/i18n/vi/setup.js';
import type { ui as UiWords } from '../../web/src/i18n/vi/ui.js';
import { appMessages, expectSpoken, loggedInPage, SCREEN_RUNS, type Language } from './app-words.js';

/**
 * Issue 31, bugs 6 and 7 in a real Chromium, in Vietnamese and English, on a desktop and a phone: the
 * set-up says what is wrong beside the field, refuses a duplicate tag, renames and removes its entries
 * and the API connections (a removal in use refused in plain words, each removal and a rotation
 * confirmed first), a dropped connection says so with a retry; the keys table fits a phone.
 */
const { db, api, shop, get } = useSuite({ api: { secureCookies: false }, shop: true });
let browser: Browser;
let page: Page;
let admin: AdminRequest;

beforeAll(async () => {
  await addAdminAndViewer(db.app, shop.shopId);
  // The test's own checks go through another owner: a person's requests count in one rate-limit window.
  await addMember(db.app, shop.shopId, { email: 'checker@shop.test', name: 'Checker', password: ADMIN_PASSWORD });
  admin = await adminLogIn(api.baseUrl, { shop: shop.slug, email: 'checker@shop.test', password: ADMIN_PASSWORD });
  browser = await launchChromium();
  page = await loggedInPage(browser, api.baseUrl, shop.slug);
});

afterAll(async () => {
  await browser?.close();
});

/** A message with its `{{placeholders}}` filled in, as the screen shows it. */
const say = (text: string, values: Record<string, string | number>) =>
  text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => String(values[name]));

type Entry = { id: string; name: string };
const listed = async (path: string) => ((await (await admin('GET', path)).json()) as { data: Entry[] }).data;

/** Nothing on the screen is wider than the window, and no table scrolls sideways in its frame. */
async function expectNoSidewaysScroll(): Promise<void> {
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
  const overflowing = await page.evaluate<number>(
    "[...document.querySelectorAll('.table-wrap')].filter((wrap) => wrap.scrollWidth > wrap.clientWidth).length",
  );
  expect(overflowing).toBe(0);
}

describe.each(SCREEN_RUNS)('the shop set-up and API connections ($viewport, $language)', ({ viewport, width, height, language }) => {
  let common: typeof CommonWords;
  let setup: typeof SetupWords;
  let connections: typeof ConnectionWords;
  let problems: typeof ProblemWords;
  let ui: typeof UiWords;
  const name = (label: string) => `${label} ${viewport}-${language}`;
  const screen = (label: string) => `${viewport}-${language}-${label}`;
  const region = (title: string) => page.getByRole('region', { name: title, exact: true });
  const dialog = () => page.getByRole('dialog');
  const field = (within: Locator, label: string) => within.getByLabel(label, { exact: true });
  /** The text shown beside a field as its error (what its aria-describedby names). */
  const errorOf = (control: Locator) =>
    control.evaluate((element) => element.ownerDocument.getElementById(element.getAttribute('aria-describedby') ?? '')?.textContent);
  /** The screen, loaded afresh. */
  const open = async (route: string, heading: string) => {
    await page.goto('about:blank');
    await page.goto(`${api.baseUrl}/admin/#/${route}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };

  beforeAll(async () => {
    const words = await appMessages(language as Language);
    ({ common, setup, connections, problems, ui } = words as unknown as {
      common: typeof CommonWords;
      setup: typeof SetupWords;
      connections: typeof ConnectionWords;
      problems: typeof ProblemWords;
      ui: typeof UiWords;
    });
    await page.setViewportSize({ width, height });
    await page.goto(`${api.baseUrl}/admin/`);
    // The person's choice of language, kept in the browser (Vietnamese when none was made).
    await page.evaluate(`localStorage.setItem('shopflow.language', '${language}')`);
  });

  it('says beside the field that a warehouse needs a name, and refuses a tag named as another', async () => {
    await open('setup', setup.title);
    const warehouses = region(setup.lists.warehouses.title);
    const before = (await listed('/warehouses')).length;
    await warehouses.getByRole('button', { name: setup.add, exact: true }).click();
    const warehouseName = field(warehouses, setup.name);
    await expect.poll(() => warehouseName.getAttribute('aria-invalid')).toBe('true');
    expect(await errorOf(warehouseName)).toBe(setup.nameRequired);
    expect(await page.evaluate('document.activeElement === document.querySelector("[aria-invalid=true]")')).toBe(true);
    expect((await listed('/warehouses')).length).toBe(before);

    const tags = region(setup.lists.tags.title);
    await field(tags, setup.name).fill(name('VIP'));
    await tags.getByRole('button', { name: setup.add, exact: true }).click();
    await tags
      .getByRole('status')
      .getByText(say(setup.added, { name: name('VIP') }))
      .waitFor();
    await field(tags, setup.name).fill(name('vip'));
    await tags.getByRole('button', { name: setup.add, exact: true }).click();
    await expect.poll(() => errorOf(field(tags, setup.name))).toBe(problems.field.taken);
    await tags.getByRole('alert').getByText(problems.codes.conflict).waitFor();
    expect((await listed('/tags')).filter((tag) => tag.name.toLowerCase() === name('vip'))).toHaveLength(1);
    await checkScreen(page, screen('setup-refusals'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();
  });

  it('renames and removes set-up entries, each removal confirmed first; one in use is refused in plain words', async () => {
    const used = (await (await admin('POST', '/tags', { name: name('Đơn quà') })).json()) as Entry;
    const spare = (await (await admin('POST', '/tags', { name: name('Thừa') })).json()) as Entry;
    await admin('POST', '/payment-methods', { name: name('Ví'), kind: 'other' });
    await admin('POST', '/warehouses', { name: name('Kho cũ'), address: null });
    await withShop(db.app, shop.shopId, async (tx) => {
      const warehouseId = await addWarehouse(tx, shop.shopId, { name: name('Kho đơn') });
      const product = await addProduct(tx, shop.shopId, { stock: { warehouseId, quantity: '2' } });
      await addOrder(tx, shop.shopId, {
        warehouseId,
        tagIds: [used.id],
        lines: [{ variantId: product.variants[0]!.id, quantity: '1', unitPrice: '100000' }],
      });
    });
    await open('setup', setup.title);

    const warehouses = region(setup.lists.warehouses.title);
    await warehouses.getByRole('button', { name: say(setup.editOf, { name: name('Kho cũ') }), exact: true }).click();
    const editing = warehouses.getByRole('form', { name: say(setup.editing, { name: name('Kho cũ') }) });
    await field(editing, setup.name).fill(name('Kho mới'));
    await field(editing, setup.address).fill('12 Lý Tự Trọng');
    await editing.getByRole('button', { name: common.save, exact: true }).click();
    await warehouses
      .getByRole('status')
      .getByText(say(setup.saved, { name: name('Kho mới') }))
      .waitFor();
    expect((await listed('/warehouses')).map((row) => row.name)).toContain(name('Kho mới'));

    const methods = region(setup.lists.paymentMethods.title);
    await methods.getByRole('button', { name: say(setup.editOf, { name: name('Ví') }), exact: true }).click();
    const method = methods.getByRole('form', { name: say(setup.editing, { name: name('Ví') }) });
    await field(method, setup.kind).selectOption('wallet');
    await method.getByRole('button', { name: common.save, exact: true }).click();
    await methods
      .getByRole('status')
      .getByText(say(setup.saved, { name: name('Ví') }))
      .waitFor();
    const wallet = (await listed('/payment-methods')).find((row) => row.name === name('Ví'));
    expect(wallet).toMatchObject({ kind: 'wallet' });

    const tags = region(setup.lists.tags.title);
    const removeTag = (tag: string) => tags.getByRole('button', { name: say(setup.removeOf, { name: tag }), exact: true }).click();
    await removeTag(name('Thừa'));
    await dialog()
      .getByText(say(setup.removeConfirm, { name: name('Thừa') }))
      .waitFor();
    await checkScreen(page, screen('setup-remove-confirm'));
    await dialog().getByRole('button', { name: common.cancel, exact: true }).click();
    await expect.poll(() => dialog().count()).toBe(0);
    expect((await listed('/tags')).map((tag) => tag.id)).toContain(spare.id);
    await removeTag(name('Thừa'));
    await dialog().getByRole('button', { name: ui.remove, exact: true }).click();
    await tags
      .getByRole('status')
      .getByText(say(setup.removed, { name: name('Thừa') }))
      .waitFor();
    expect((await listed('/tags')).map((tag) => tag.id)).not.toContain(spare.id);

    await removeTag(name('Đơn quà'));
    await dialog().getByRole('button', { name: ui.remove, exact: true }).click();
    await tags
      .getByRole('alert')
      .getByText(say(problems.inUse.orders, { count: 1 }))
      .waitFor();
    expect((await listed('/tags')).map((tag) => tag.id)).toContain(used.id);
    await checkScreen(page, screen('setup-in-use'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();
  });

  it('says beside each field what a new application and a carrier connection still need', async () => {
    await open('connections', connections.title);
    await page.getByText(connections.create, { exact: true }).click();
    await page.getByRole('button', { name: connections.createSubmit, exact: true }).click();
    const appName = page.getByLabel(connections.appName, { exact: true });
    await expect.poll(() => errorOf(appName)).toBe(setup.nameRequired);
    await page.getByText(connections.permissionsRequired).waitFor();
    await checkScreen(page, screen('connections-create'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();

    await open('setup', setup.title);
    const carriers = region(setup.carriers.title);
    await carriers.getByText(setup.carriers.connect, { exact: true }).click();
    await carriers.getByRole('button', { name: setup.carriers.submit, exact: true }).click();
    await expect.poll(() => errorOf(field(carriers, setup.carriers.warehouse))).toBe(problems.field.required);
    expect(await errorOf(field(carriers, setup.carriers.fields.token))).toBe(problems.field.required);
    expect(await errorOf(field(carriers, setup.carriers.fields.ward))).toBeUndefined();
    await checkScreen(page, screen('setup-carrier-form'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();
  });

  it('asks before rotating a key, renames and removes an application; its keys table fits the screen', async () => {
    const created = await admin('POST', '/applications', { name: name('Robot kho'), permissions: ['pos.products.read'] });
    const { applicationId, key } = (await created.json()) as { applicationId: string; key: string };
    await open('connections', connections.title);
    const application = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: name('Robot kho'), exact: true }) });

    await application.getByLabel(connections.overlap).fill('0');
    await application.getByRole('button', { name: connections.rotate, exact: true }).click();
    await dialog()
      .getByText(say(connections.rotateConfirmNow, { name: name('Robot kho') }))
      .waitFor();
    await checkScreen(page, screen('connections-rotate-confirm'));
    await dialog().getByRole('button', { name: common.cancel, exact: true }).click();
    expect(await page.getByTestId('shown-once').count()).toBe(0);
    expect((await get('/shop', key)).status).toBe(200);
    await application.getByRole('button', { name: connections.rotate, exact: true }).click();
    await dialog().getByRole('button', { name: connections.rotate, exact: true }).click();
    await page.getByText(say(connections.newKeyOf, { name: name('Robot kho') })).waitFor();
    const rotated = (await page.getByTestId('shown-once').textContent())!;
    expect((await get('/shop', key)).status).toBe(401);
    expect((await get('/shop', rotated)).status).toBe(200);
    await application.getByRole('cell', { name: connections.keys.states.expired }).waitFor();
    await checkScreen(page, screen('connections'));
    await expectSpoken(page, language);
    await expectNoSidewaysScroll();

    await application.getByRole('button', { name: say(connections.renameOf, { name: name('Robot kho') }), exact: true }).click();
    await field(application, connections.appName).fill(name('Robot kho 2'));
    await application.getByRole('button', { name: common.save, exact: true }).click();
    await page
      .getByRole('status')
      .getByText(say(connections.renamed, { name: name('Robot kho 2') }))
      .waitFor();

    const renamed = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: name('Robot kho 2'), exact: true }) });
    await renamed.getByRole('button', { name: say(connections.removeOf, { name: name('Robot kho 2') }), exact: true }).click();
    await dialog()
      .getByText(say(connections.removeConfirm, { name: name('Robot kho 2') }))
      .waitFor();
    await dialog().getByRole('button', { name: connections.remove, exact: true }).click();
    await page
      .getByRole('status')
      .getByText(say(connections.removed, { name: name('Robot kho 2') }))
      .waitFor();
    await expect.poll(() => renamed.count()).toBe(0);
    expect((await get('/shop', rotated)).status).toBe(401);
    const left = (await (await admin('GET', '/applications')).json()) as { data: Entry[] };
    expect(left.data.map((row) => row.id)).not.toContain(applicationId);
  });

  it('says plainly that the server cannot be reached, and retries on request', async () => {
    await page.route('**/api/admin/tags', (route) => route.abort('internetdisconnected'));
    await open('setup', setup.title);
    const tags = region(setup.lists.tags.title);
    await tags.getByRole('alert').getByText(problems.network).waitFor();
    expect(await page.getByText('Failed to fetch').count()).toBe(0);
    await checkScreen(page, screen('setup-network-failure'));
    await expectSpoken(page, language);
    await page.unroute('**/api/admin/tags');
    await tags.getByRole('button', { name: common.retry, exact: true }).click();
    await tags.getByText(name('VIP'), { exact: true }).waitFor();

    const channels = region(setup.lists.salesChannels.title);
    await page.route('**/api/admin/sales-channels', (route) =>
      route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.fallback(),
    );
    await field(channels, setup.name).fill(name('Shopee'));
    await channels.getByRole('button', { name: setup.add, exact: true }).click();
    await channels.getByRole('alert').getByText(problems.network).waitFor();
    await page.unroute('**/api/admin/sales-channels');
    await channels.getByRole('button', { name: common.retry, exact: true }).click();
    await channels
      .getByRole('status')
      .getByText(say(setup.added, { name: name('Shopee') }))
      .waitFor();
    expect((await listed('/sales-channels')).map((row) => row.name)).toContain(name('Shopee'));
  });
});
