import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_PASSWORD, addAdminAndViewer } from '../support/admin-session.js';
import { checkScreen, launchChromium } from '../support/browser.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import type { common as CommonWords } from '../../web/src/i18n/vi/common.js';
import type { login as LoginWords } from '../../web/src/i18n/vi/login.js';
import type { problems as ProblemWords } from '../../web/src/i18n/vi/problems.js';
import type { setup as SetupWords } from '../../web/src/i18n/vi/setup.js';
import type { connections as ConnectionWords } from '../../web/src/i18n/vi/connections.js';
import { appMessages, expectSpoken, type Language } from './app-words.js';

/**
 * Issue 31, the app's language in a real Chromium: Vietnamese first (the login screen too), English
 * on a person's choice, kept on their account so that it follows them to a fresh browser; the header
 * names the shop; no screen of the shell, the login, the set-up or the API connections shows a key or
 * an English word in Vietnamese. On a desktop and on a phone.
 */
const { db, api } = useSuite({ api: { secureCookies: false } });
const SHOP_NAME = 'Thời trang Án Nhiên';
let shop: ShopFixture;

type Words = {
  common: typeof CommonWords;
  login: typeof LoginWords;
  problems: typeof ProblemWords;
  setup: typeof SetupWords;
  connections: typeof ConnectionWords;
};
const words = {} as Record<Language, Words>;

beforeAll(async () => {
  shop = await createShopFixture(db.app, { name: SHOP_NAME });
  await addAdminAndViewer(db.app, shop.shopId);
  for (const language of ['vi', 'en'] as const) words[language] = (await appMessages(language)) as unknown as Words;
});

const VIEWPORTS = [
  { viewport: 'desktop', width: 1280, height: 900 },
  { viewport: 'phone', width: 375, height: 812 },
] as const;

describe.each(VIEWPORTS)('the language ($viewport)', ({ viewport, width, height }) => {
  let browser: Browser | undefined;
  let page: Page;
  const screen = (language: Language, label: string) => `${viewport}-${language}-${label}`;

  /** A browser that has never opened the app (nothing stored), started anew: the packaged Chromium runs one context at a time. */
  async function freshBrowser(): Promise<Page> {
    await browser?.close();
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width, height } })).newPage();
    await page.goto(`${api.baseUrl}/admin/`);
    return page;
  }

  async function logIn(language: Language): Promise<void> {
    const { login } = words[language];
    await page.getByLabel(login.shop).fill(shop.slug);
    await page.getByLabel(login.email).fill('admin@shop.test');
    await page.getByLabel(login.password).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: login.logIn, exact: true }).click();
  }

  /** The app speaks `language`: the shell, the set-up and the API connections screens, each with no sideways scrolling. */
  async function expectApp(language: Language): Promise<void> {
    const { common, setup, connections } = words[language];
    expect(await page.evaluate('document.documentElement.lang')).toBe(language);
    await page.getByRole('link', { name: common.nav.setup }).click();
    await page.getByRole('heading', { level: 1, name: setup.title }).waitFor();
    await page.getByText(setup.lists.tags.empty).waitFor();
    await expectSpoken(page, language);
    await checkScreen(page, screen(language, 'setup-empty'));
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    await page.getByRole('link', { name: common.nav.connections }).click();
    await page.getByRole('heading', { level: 1, name: connections.title }).waitFor();
    await page.getByText(connections.empty).waitFor();
    await expectSpoken(page, language);
    await checkScreen(page, screen(language, 'connections-empty'));
  }

  beforeAll(async () => {
    await db.admin`update users set language = null where email = 'admin@shop.test'`;
  });

  afterAll(async () => {
    await browser?.close();
  });

  it('opens the login screen in Vietnamese, offers English, and says what is wrong beside the field', async () => {
    await freshBrowser();
    const { login, problems } = words.vi;
    await page.getByRole('heading', { level: 1, name: login.title }).waitFor();
    expect(await page.evaluate('document.documentElement.lang')).toBe('vi');
    await expectSpoken(page, 'vi');
    await checkScreen(page, screen('vi', 'login'));

    await page.getByRole('button', { name: login.logIn, exact: true }).click();
    const shopField = page.getByLabel(login.shop);
    await expect.poll(() => shopField.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByText(problems.field.required).count()).toBe(3);
    expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toBe('shop');
    await shopField.fill(shop.slug);
    await page.getByLabel(login.email).fill('admin@shop.test');
    await page.getByLabel(login.password).fill('not the password');
    await page.getByRole('button', { name: login.logIn, exact: true }).click();
    await page.getByRole('alert').getByText(problems.codes['invalid-credentials']).waitFor();
    await checkScreen(page, screen('vi', 'login-refused'));

    await page.getByLabel(words.vi.common.language.label).selectOption('en');
    await page.getByRole('heading', { level: 1, name: words.en.login.title }).waitFor();
    expect(await page.evaluate('document.documentElement.lang')).toBe('en');
    await expectSpoken(page, 'en');
    await checkScreen(page, screen('en', 'login'));
    await page.getByLabel(words.en.common.language.label).selectOption('vi');
    await page.getByRole('heading', { level: 1, name: login.title }).waitFor();
  });

  it("logs in to the app in Vietnamese, with the shop's name in the header", async () => {
    await freshBrowser();
    await logIn('vi');
    const banner = page.getByRole('banner');
    await banner.getByText(SHOP_NAME).waitFor();
    expect(await banner.textContent()).not.toContain(shop.slug);
    await expectApp('vi');
  });

  it('switches to English and back for the person: the choice follows them to a fresh browser', async () => {
    const choose = async (from: Language, to: Language) => {
      await page.getByRole('banner').getByLabel(words[from].common.language.label).selectOption(to);
      await page.getByRole('link', { name: words[to].common.nav.setup }).waitFor();
      await expect
        .poll(async () => (await db.admin<{ language: string }[]>`select language from users where email = 'admin@shop.test'`)[0]!.language)
        .toBe(to);
    };
    await choose('vi', 'en');
    await expectApp('en');

    // Another browser: its login screen is Vietnamese (it knows nobody yet); once logged in, the app is the person's English.
    await freshBrowser();
    await page.getByRole('heading', { level: 1, name: words.vi.login.title }).waitFor();
    await logIn('vi');
    await page.getByRole('button', { name: words.en.common.logOut }).waitFor();
    await expectApp('en');

    await choose('en', 'vi');
    await freshBrowser();
    await logIn('vi');
    await page.getByRole('button', { name: words.vi.common.logOut }).waitFor();
    await expectApp('vi');
  });
});
