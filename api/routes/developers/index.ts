import type { FastifyPluginAsync } from 'fastify';
import { OPEN_API_DOCUMENT, REFERENCE_PAGE } from '../open-api.js';
import { errors } from './errors-page.js';
import { authentication, gettingStarted } from './guide-pages.js';
import { layout, pagePath, SITE_CSP, SITE_PREFIX, STYLE, STYLESHEET } from './layout.js';
import { idempotency, rateLimits } from './limits-pages.js';
import { pagination, sync } from './list-pages.js';
import { operationsOf, type OpenApiDocument, type Page, type Site } from './site.js';
import { webhooks } from './webhooks-page.js';

/** The guide's pages, in its order. */
export const PAGES: readonly Page[] = [gettingStarted, authentication, rateLimits, idempotency, sync, pagination, webhooks, errors];

const CACHE = 'public, max-age=300';

/**
 * The developer site beside the API reference: server-rendered pages written from the code's own
 * constants (problem codes, event types) and from the public OpenAPI document (the one the reference shows), so
 * what it says moves with the code. The errors page is the address of every problem's `type`.
 */
export const developerSiteRoutes: FastifyPluginAsync<{ publicBaseUrl: string; apiPrefix: string }> = async (app, options) => {
  const rendered = new Map<Page, string>();
  let site: Promise<Site> | undefined;
  // Read once, at the first page asked for: every route, and so the document, is there by then
  // (a failed read is tried again at the next page).
  const read = async (): Promise<Site> => {
    const answer = await app.inject({ method: 'GET', url: OPEN_API_DOCUMENT });
    if (answer.statusCode !== 200) throw new Error(`the developer site could not read ${OPEN_API_DOCUMENT}: ${answer.statusCode}`);
    const document = answer.json<OpenApiDocument>();
    return {
      baseUrl: options.publicBaseUrl,
      apiPrefix: options.apiPrefix,
      referencePage: REFERENCE_PAGE,
      documentUrl: OPEN_API_DOCUMENT,
      document,
      operations: operationsOf(document, options.apiPrefix),
    };
  };
  const siteOf = () =>
    (site ??= read().catch((error: unknown) => {
      site = undefined;
      throw error;
    }));

  for (const page of PAGES) {
    app.get(pagePath(page.slug), { schema: { hide: true } }, async (_request, reply) => {
      if (!rendered.has(page)) rendered.set(page, layout(PAGES, page, REFERENCE_PAGE, page.render(await siteOf())));
      return reply
        .type('text/html; charset=utf-8')
        .header('content-security-policy', SITE_CSP)
        .header('cache-control', CACHE)
        .send(rendered.get(page));
    });
  }
  app.get(`${SITE_PREFIX}/`, { schema: { hide: true } }, async (_request, reply) => reply.redirect(SITE_PREFIX, 301));
  app.get(STYLESHEET, { schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', CACHE).send(STYLE),
  );
};
