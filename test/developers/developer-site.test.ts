import { describe, expect, it } from 'vitest';
import { PAGES } from '../../api/routes/developers/index.js';
import { EVENT_EXAMPLES } from '../../domain/flows/index.js';
import { pagePath } from '../../api/routes/developers/layout.js';
import { problemBody } from '../../api/plugins/problems.js';
import { SYNC_OVERLAP_MS } from '../../clients/typescript/src/sync.js';
import { ProductDetail } from '../../domain/catalog/index.js';
import { ChatMessageSchema } from '../../domain/chat/index.js';
import { CustomerDetail } from '../../domain/customers/index.js';
import { EVENT_TYPES } from '../../domain/events/index.js';
import { updateShopSettings } from '../../domain/access/index.js';
import {
  DEFAULT_RECOMPUTE_CEILING_SECONDS,
  MAX_RECOMPUTE_CEILING_SECONDS,
  Problem,
  PROBLEM_GUIDANCE,
  PROBLEMS,
  SYNC_OVERLAP_MINUTES,
  type ProblemCode,
} from '../../domain/kernel/index.js';
import { OrderDetail } from '../../domain/orders/index.js';
import { shipmentDetailSchema } from '../../domain/shipments/index.js';
import { OVERLAP_MS } from '../../examples/developer-site/sync.js';
import { useSuite } from '../support/suite.js';

/** The developer site over real HTTP, beside the reference page (issue 30, item 2). */
const { db, api, shop, get } = useSuite({ api: true, shop: true });

const page = async (path: string) => {
  const response = await fetch(`${api.baseUrl}${path}`);
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text(), headers: response.headers };
};
/** The text of a page, tags and entities aside, spaces collapsed: what a reader sees. */
const text = (html: string) =>
  html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .replace(/ ([,.;:)])/g, '$1')
    .replace(/\( /g, '(');
/** Guidance prose as the page shows it: `inline code` is set as code. */
const shown = (prose: string) => prose.replaceAll('`', '');
/** A problem's `type` on the test server: its path and anchor, on the server's own address. */
const local = (type: string) => ({ path: new URL(type).pathname, anchor: new URL(type).hash.slice(1) });

describe('the developer site', () => {
  it('serves every page as HTML with its title, its navigation and a stylesheet, outside the key-protected API', async () => {
    for (const { slug, title } of PAGES) {
      const answer = await page(pagePath(slug));
      expect({ slug, status: answer.status, type: answer.type }).toEqual({ slug, status: 200, type: 'text/html; charset=utf-8' });
      expect(answer.html).toContain(`<h1>${title}</h1>`);
      expect(answer.headers.get('content-security-policy')).toContain("default-src 'none'");
      for (const other of PAGES) expect(answer.html).toContain(`href="${pagePath(other.slug)}"`);
    }
    const css = await page('/developers/site.css');
    expect({ status: css.status, type: css.type }).toEqual({ status: 200, type: 'text/css; charset=utf-8' });
    expect((await fetch(`${api.baseUrl}/developers/`, { redirect: 'manual' })).headers.get('location')).toBe('/developers');
    // The site is no operation of the API: the document does not list it.
    const document = (await (await fetch(`${api.baseUrl}/docs/json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/developers'))).toEqual([]);
  });

  it('answers every problem type address with an entry for its code, saying what it means and what to do', async () => {
    const errors = await page('/developers/errors');
    for (const code of Object.keys(PROBLEMS) as ProblemCode[]) {
      const { path, anchor } = local(problemBody(new Problem(code, 'x'), 'https://shopflow.test').type);
      expect(path).toBe('/developers/errors');
      expect((await page(path)).status).toBe(200);
      expect(errors.html).toContain(`id="${anchor}"`);
      const entry = text(errors.html.slice(errors.html.indexOf(`id="${anchor}"`)).split('</section>')[0]!);
      expect(entry).toContain(`${PROBLEMS[code].status} ${PROBLEMS[code].title}`);
      expect(entry).toContain(shown(PROBLEM_GUIDANCE[code].meaning));
      expect(entry).toContain(`What to do: ${shown(PROBLEM_GUIDANCE[code].action)}`);
    }
    // …and so do the addresses of real refusals.
    for (const response of [await get('/shop'), await get('/shop', 'svc_live_00000000000000000000000000000000000000')]) {
      const { path, anchor } = local(((await response.json()) as { type: string }).type);
      expect((await page(path)).html).toContain(`id="${anchor}"`);
    }
  });

  it('states the safety delay, the overlap and the retry schedule from the code', async () => {
    const sync = text((await page('/developers/sync')).html);
    expect(sync).toContain('2 min 15 s by default');
    expect(sync).toContain('never longer than 10 min 15 s');
    expect(sync).toContain('15-minute overlap');
    const webhooks = text((await page('/developers/webhooks')).html);
    // Attempt, wait before it, time since the first attempt.
    expect(webhooks).toContain(
      '2 5 s 5 s 3 5 min 5 min 5 s 4 30 min 35 min 5 s 5 2 h 2 h 35 min 5 s 6 5 h 7 h 35 min 5 s 7 10 h 17 h 35 min 5 s 8 10 h 27 h 35 min 5 s',
    );
    expect(webhooks).toContain('±20 %');
  });

  it('lists what the API declares: permissions, rate-limit counters, idempotent operations and lists', async () => {
    const authentication = text((await page('/developers/authentication')).html);
    expect(authentication).toMatch(/pos\.orders\.read [^.]*GET \/orders[^.]*GET \/orders\/\{id\}/);
    expect(authentication).toContain('Any valid key may call GET /shop');
    const limits = text((await page('/developers/rate-limits')).html);
    expect(limits).toMatch(/shipments 60 per shop, shared by all its keys POST \/shipments, POST \/shipments\/\{id\}\/cancel/);
    const idempotency = text((await page('/developers/idempotency')).html);
    for (const operation of ['POST /orders', 'POST /customers', 'POST /shipments']) expect(idempotency).toContain(operation);
    expect(idempotency).toContain('within 24 hours of the first');
    const pagination = text((await page('/developers/pagination')).html);
    const paginated = /Paginated lists: ([^.]*)\./.exec(pagination)![1]!.split(', ');
    expect(paginated).toEqual(expect.arrayContaining(['GET /orders', 'GET /customers', 'GET /inventory/stock', 'GET /conversations']));
    expect(paginated).not.toContain('GET /tags');
  });

  it('shows an example envelope for every event type of the catalogue, each data in its wire shape', async () => {
    const webhooks = (await page('/developers/webhooks')).html;
    for (const type of EVENT_TYPES) {
      expect(webhooks).toContain(`id="${type}"`);
      expect(webhooks).toContain(`&quot;type&quot;: &quot;${type}&quot;`);
    }
    const shapes = {
      order: OrderDetail,
      product: ProductDetail,
      customer: CustomerDetail,
      shipment: shipmentDetailSchema,
      message: ChatMessageSchema,
    };
    for (const type of EVENT_TYPES) {
      const shape = shapes[type.split('.')[0] as keyof typeof shapes];
      // Parsing drops fields a shape does not know, so an example equal to its parse has no field too many.
      if (shape) expect({ type, data: shape.parse(EVENT_EXAMPLES[type].data) }).toEqual({ type, data: EVENT_EXAMPLES[type].data });
    }
  });

  it('keeps the constants it states equal to the database, the typed client and the sync sample', async () => {
    const [column] = await db.admin<{ columnDefault: string }[]>`
      select column_default from information_schema.columns where table_name = 'shops' and column_name = 'recompute_ceiling_seconds'`;
    expect(column!.columnDefault).toBe(String(DEFAULT_RECOMPUTE_CEILING_SECONDS));
    await updateShopSettings(db.app, shop.shopId, { recomputeCeilingSeconds: MAX_RECOMPUTE_CEILING_SECONDS });
    await expect(updateShopSettings(db.app, shop.shopId, { recomputeCeilingSeconds: MAX_RECOMPUTE_CEILING_SECONDS + 1 })).rejects.toThrow();
    expect(SYNC_OVERLAP_MS).toBe(SYNC_OVERLAP_MINUTES * 60_000);
    expect(OVERLAP_MS).toBe(SYNC_OVERLAP_MINUTES * 60_000);
  });
});
