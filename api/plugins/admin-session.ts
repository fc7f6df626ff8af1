import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import type { Sql } from '../../db/client.js';
import { assertCsrfToken, countHit, rateLimited, sessionOf, type AdminSession } from '../../domain/access/index.js';
import { Problem } from '../../domain/kernel/index.js';
import { isUnderPrefix } from './route-area.js';
import { setRateHeaders } from './rate-headers.js';

export const SESSION_COOKIE = 'shopflow_session';

/**
 * Requests a person may make to the admin API in a one-minute window, reads and writes alike: the web
 * app makes a few per screen, so only a script hammering the API (or a runaway tab) reaches it.
 */
export const ADMIN_REQUESTS_PER_MINUTE = 300;

declare module 'fastify' {
  interface FastifyRequest {
    /** The logged-in member; reading it on a request without a session answers 401 (fail closed). */
    admin: AdminSession;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);
const kAdmin = Symbol('admin');
type WithAdmin = { [kAdmin]?: AdminSession };

/**
 * The admin web app's API: every route under `prefix` but the login itself (`config.public`) needs
 * the session cookie, and every change also the session's CSRF token in `X-CSRF-Token` (the cookie
 * alone, which a browser attaches to cross-site requests, is never enough). Each person's requests
 * count in the shared one-minute counters (`admin:user:<id>`, across their shops and sessions): past
 * ADMIN_REQUESTS_PER_MINUTE the answer is 429 with `Retry-After`, and every counted answer carries the
 * `X-RateLimit-*` headers of the Open API. Routes are judged by the route the router matched, so an
 * encoded or oddly spelled path cannot slip past.
 */
export const adminSessionPlugin = fp<{ sql: Sql; prefix: string }>(async (app, { sql, prefix }) => {
  await app.register(cookie);
  app.decorateRequest('admin', {
    getter(this: FastifyRequest & WithAdmin): AdminSession {
      const session = this[kAdmin];
      if (!session) throw new Problem('not-logged-in', 'log in first (POST /api/admin/session)');
      return session;
    },
    setter(this: FastifyRequest & WithAdmin, session: AdminSession) {
      this[kAdmin] = session;
    },
  });
  app.addHook('onRequest', async (request, reply) => {
    if (!isUnderPrefix(request, prefix) || request.routeOptions.config.public) return;
    request.admin = await sessionOf(sql, request.cookies[SESSION_COOKIE]);
    const hit = await countHit(sql, `admin:user:${request.admin.userId}`);
    const state = setRateHeaders(reply, ADMIN_REQUESTS_PER_MINUTE, hit.hits, hit.windowStart);
    if (state.exceeded) throw rateLimited(state.resetSeconds);
    if (!SAFE_METHODS.has(request.method)) assertCsrfToken(request.admin, request.headers['x-csrf-token'] as string | undefined);
  });
});
