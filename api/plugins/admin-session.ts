import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import type { Sql } from '../../db/client.js';
import { assertCsrfToken, sessionOf, type AdminSession } from '../../domain/admin-sessions.js';

export const SESSION_COOKIE = 'shopflow_session';

declare module 'fastify' {
  interface FastifyRequest {
    admin: AdminSession;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * The admin web app's API: every request under `prefix` but the login itself needs the session
 * cookie, and every change also the session's CSRF token in `X-CSRF-Token` (the cookie alone,
 * which a browser attaches to cross-site requests, is never enough).
 */
export const adminSessionPlugin = fp<{ sql: Sql; prefix: string }>(async (app, { sql, prefix }) => {
  await app.register(cookie);
  app.decorateRequest('admin', null as unknown as AdminSession);
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0]!;
    if (!path.startsWith(`${prefix}/`)) return;
    if (request.method === 'POST' && path === `${prefix}/session`) return;
    request.admin = await sessionOf(sql, request.cookies[SESSION_COOKIE]);
    if (!SAFE_METHODS.has(request.method)) assertCsrfToken(request.admin, request.headers['x-csrf-token'] as string | undefined);
  });
});
