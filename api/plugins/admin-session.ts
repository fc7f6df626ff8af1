import fp from 'fastify-plugin';
import cookie from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import type { Sql } from '../../db/client.js';
import {
  assertCsrfToken,
  countHit,
  rateLimited,
  sessionOf,
  SESSION_TOKEN_SHAPE,
  type AdminSession,
  type SessionMisses,
} from '../../domain/access/index.js';
import { clientAddressBucket } from './client-address.js';
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

/** The shop of the request's session, once checked; undefined before (or without a session), never a 401. */
export function sessionShopId(request: FastifyRequest): string | undefined {
  return (request as FastifyRequest & WithAdmin)[kAdmin]?.shopId;
}

/**
 * The admin web app's API: every route under `prefix` but the login itself (`config.public`) needs
 * the session cookie, and every change also the session's CSRF token in `X-CSRF-Token` (the cookie
 * alone, which a browser attaches to cross-site requests, is never enough). Each person's requests
 * count in the shared one-minute counters (`admin:user:<id>`, across their shops and sessions): past
 * ADMIN_REQUESTS_PER_MINUTE the answer is 429 with `Retry-After`, and every counted answer carries the
 * `X-RateLimit-*` headers of the Open API. A cookie the database does not know is counted per
 * address, and past SESSION_MISSES_PER_MINUTE the address is refused before any lookup. Routes are
 * judged by the route the router matched, so an
 * encoded or oddly spelled path cannot slip past.
 */
export const adminSessionPlugin = fp<{ sql: Sql; prefix: string; sessionMisses: SessionMisses }>(
  async (app, { sql, prefix, sessionMisses }) => {
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
      request.admin = await knownSession(sql, sessionMisses, request);
      const hit = await countHit(sql, `admin:user:${request.admin.userId}`);
      const state = setRateHeaders(reply, ADMIN_REQUESTS_PER_MINUTE, hit.hits, hit.windowStart);
      if (state.exceeded) throw rateLimited(state.resetSeconds);
      if (!SAFE_METHODS.has(request.method)) assertCsrfToken(request.admin, request.headers['x-csrf-token'] as string | undefined);
    });
  },
);

/**
 * The request's live session (sessionOf); an address that has sent too many unknown tokens this
 * minute is refused 429 before any database work (SessionMisses).
 */
async function knownSession(sql: Sql, sessionMisses: SessionMisses, request: FastifyRequest): Promise<AdminSession> {
  const token = request.cookies[SESSION_COOKIE];
  // Refused by sessionOf without a lookup: nothing to count against the address.
  if (!token || !SESSION_TOKEN_SHAPE.test(token)) return sessionOf(sql, token);
  const address = clientAddressBucket(request.ip);
  const waitSeconds = sessionMisses.refusal(address, token);
  if (waitSeconds > 0)
    throw rateLimited(waitSeconds, `too many requests with unknown sessions from this address; retry in ${waitSeconds} s`);
  try {
    const session = await sessionOf(sql, token);
    sessionMisses.valid(token);
    return session;
  } catch (error) {
    if (error instanceof Problem && error.code === 'not-logged-in') sessionMisses.missed(address);
    throw error;
  }
}
