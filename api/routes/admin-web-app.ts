import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync } from 'fastify';

export const WEB_APP_PREFIX = '/admin';

/**
 * Only the app's own files: no inline script or style, no framing, no other origin. Styles set from
 * script (React Flow's node positions) go through the CSSOM, which `style-src` does not govern.
 */
export const WEB_APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The built admin web app (`vite build` into `web/dist`), under `/admin` with a strict
 * Content-Security-Policy. The app routes in the URL's fragment, so `/admin/` is its only page.
 * Not served when the app was not built (the API alone still runs).
 */
export const adminWebAppRoutes: FastifyPluginAsync<{ root: string }> = async (app, { root }) => {
  if (!existsSync(join(root, 'index.html'))) return;
  await app.register(fastifyStatic, {
    root,
    prefix: `${WEB_APP_PREFIX}/`,
    index: 'index.html',
    setHeaders: (response, path) => {
      response.setHeader('content-security-policy', WEB_APP_CSP);
      response.setHeader('x-content-type-options', 'nosniff');
      response.setHeader('referrer-policy', 'same-origin');
      // Hashed asset names never change content; the page itself is always checked.
      response.setHeader('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  app.get(WEB_APP_PREFIX, { schema: { hide: true } }, (_request, reply) => reply.redirect(`${WEB_APP_PREFIX}/`));
};
