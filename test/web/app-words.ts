import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { projectRoot } from '../../scripts/bootstrap/paths.js';
import { ADMIN_PASSWORD, logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { launchChromium } from '../support/browser.js';
import type { Suite } from '../support/suite.js';

/** The admin app's messages (web/src/i18n/<language>/<namespace>.ts), as the app loads them. */
export type Language = 'vi' | 'en';
type Entries = Record<string, unknown>;

const messagesDir = (language: Language) => join(projectRoot, 'web', 'src', 'i18n', language);

/** Every namespace of a language: each file exports its messages named like the file. */
export async function appMessages(language: Language): Promise<Record<string, Entries>> {
  const namespaces = readdirSync(messagesDir(language)).filter((file) => file.endsWith('.ts'));
  const loaded = await Promise.all(
    namespaces.map(async (file) => {
      const namespace = file.replace(/\.ts$/, '');
      const module = (await import(join(messagesDir(language), file))) as Record<string, Entries>;
      return [namespace, module[namespace]!] as const;
    }),
  );
  return Object.fromEntries(loaded);
}

/** `{ a: { b: 'x' } }` as `[['a.b', 'x']]`. */
function flatten(entries: Entries, prefix = ''): [string, string][] {
  return Object.entries(entries).flatMap(([key, value]) =>
    typeof value === 'string' ? [[`${prefix}${key}`, value] as [string, string]] : flatten(value as Entries, `${prefix}${key}.`),
  );
}

/** A message with its `{{placeholders}}` as a pattern matching what the screen shows. */
export function shown(text: string): RegExp {
  const literal = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\\\{\\\{\w+\\\}\\\}/g, '.+');
  return new RegExp(literal);
}

/**
 * What a person reads of `root`: its text (shown or folded away, options included), and the names
 * and hints its controls carry; not the data and codes shown as such (`pre`, `code`, and where no
 * element can hold a `code`, as in an option, `translate="no"`).
 */
async function readable(root: Page | Locator): Promise<string> {
  const locator = 'goto' in root ? root.locator('body') : root;
  return locator.evaluate((element) => {
    const texts: string[] = [];
    // 4: NodeFilter.SHOW_TEXT (this file is compiled without the DOM's names).
    const walker = element.ownerDocument.createTreeWalker(element, 4);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement?.closest('pre, code, script, style, noscript, [translate="no"]')) texts.push(node.textContent ?? '');
    }
    const attributes = [...element.querySelectorAll('[aria-label], [title], [placeholder]')].flatMap((node) =>
      ['aria-label', 'title', 'placeholder'].map((name) => node.getAttribute(name) ?? ''),
    );
    return [...texts, ...attributes].join('\n');
  });
}

/**
 * The screen (or the part `root` of it) speaks `language` only: no message key shown as such (a
 * missing entry: i18next shows its key), no placeholder left, and in Vietnamese no English entry where
 * the Vietnamese one differs (a word left untranslated). Codes shown on purpose (`order.created`,
 * `pos.orders.read`) are no keys and no entries.
 */
export async function expectSpoken(root: Page | Locator, language: Language): Promise<void> {
  const text = await readable(root);
  const [vi, en] = await Promise.all([appMessages('vi'), appMessages('en')]);
  const keys = Object.values(vi).flatMap((entries) => flatten(entries).map(([key]) => key));
  // A bare key of one word (`title`) reads as a word in English: only dotted and camel-cased keys there.
  const suspects = keys.filter((key) => language === 'vi' || /[.A-Z]/.test(key));
  const keyPattern = (key: string) => new RegExp(`(^|[^\\w.:-])${key.replace(/\./g, '\\.')}($|[^\\w.-])`);
  expect(suspects.filter((key) => keyPattern(key).test(text))).toEqual([]);
  expect(text).not.toMatch(/\{\{\w+\}\}/);
  if (language !== 'vi') return;
  const viEntries = new Map(
    Object.entries(vi).flatMap(([namespace, entries]) => flatten(entries).map(([key, value]) => [`${namespace}:${key}`, value])),
  );
  const english = Object.entries(en)
    .flatMap(([namespace, entries]) => flatten(entries).map(([key, value]) => [`${namespace}:${key}`, value] as const))
    .filter(([key, value]) => viEntries.get(key) !== value)
    // The entry's literal parts long enough to be words, not a shared code or a name (`POST`, `Shopflow`).
    .flatMap(([key, value]) => value.split(/\{\{\w+\}\}/).map((part) => [key, part.trim()] as const))
    .filter(([, part]) => part.length >= 6 && /[a-z]{3}/.test(part));
  // As words, not inside a code shown beside a plain name (`Đang hoạt động (data.isActive)` holds no English `Active`).
  const asWords = (part: string) => new RegExp(`(^|[^\\p{L}])${part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}])`, 'u');
  expect(english.filter(([, part]) => asWords(part).test(text)).map(([key, part]) => `${key}: ${part}`)).toEqual([]);
}

/** Every screen is tested at a desktop's and a phone's width, in both languages. */
export const SCREEN_RUNS = [
  { viewport: 'desktop', width: 1280, height: 900, language: 'vi' },
  { viewport: 'phone', width: 375, height: 812, language: 'vi' },
  { viewport: 'desktop', width: 1280, height: 900, language: 'en' },
  { viewport: 'phone', width: 375, height: 812, language: 'en' },
] as const;

/**
 * A page whose context holds the shop admin's session cookie: the app opens logged in (the login screen
 * has tests of its own). `locale`: the browser's own language (navigator.language), else the system's.
 */
export async function loggedInPage(browser: Browser, baseUrl: string, shopSlug: string, locale?: string): Promise<Page> {
  const page = await (await browser.newContext({ locale })).newPage();
  const login = await page.request.post(`${baseUrl}/api/admin/session`, {
    data: { shop: shopSlug, email: 'admin@shop.test', password: ADMIN_PASSWORD },
  });
  expect(login.status()).toBe(200);
  return page;
}

/**
 * For a file of admin-app browser tests: before its tests, `admin@` and `viewer@` added to the suite's
 * shop with the admin logged in to the admin API, and a browser page logged in to the app, handed to
 * `opened`; the browser closed after them.
 */
export function openAdminApp(suite: Pick<Suite, 'db' | 'api' | 'shop'>, opened: (app: { admin: AdminRequest; page: Page }) => void): void {
  let browser: Browser | undefined;
  beforeAll(async () => {
    const { admin } = await logInAdminAndViewer(suite.api.baseUrl, suite.db.app, suite.shop);
    browser = await launchChromium();
    opened({ admin, page: await loggedInPage(browser, suite.api.baseUrl, suite.shop.slug) });
  });
  afterAll(async () => {
    await browser?.close();
  });
}
