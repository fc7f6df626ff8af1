import fp from 'fastify-plugin';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Sql } from '../../db/client.js';
import {
  assertHolds,
  authenticateRequest,
  countHit,
  hashApiKey,
  isWellFormedApiKey,
  RATE_LIMITS,
  rateLimited,
  type AuthenticatedRequest,
  type RateCounter,
} from '../../domain/access/index.js';
import { Problem } from '../../domain/kernel/index.js';
import { fullyDecoded, isUnderPrefix, normalisedPath } from './route-area.js';
import { clientAddressBucket } from './client-address.js';
import { setRateHeaders } from './rate-headers.js';

/**
 * Who is calling: the key's application and shop, as found on this very request. Derived from the
 * row authenticate_request answers (one source), the shop's fields grouped under `shop`.
 */
export type AuthContext = Pick<AuthenticatedRequest, 'keyId' | 'applicationId' | 'applicationName' | 'permissions' | 'pageIds'> & {
  shop: Pick<AuthenticatedRequest, 'plan' | 'recomputeCeilingSeconds'> & {
    id: AuthenticatedRequest['shopId'];
    slug: AuthenticatedRequest['shopSlug'];
    name: AuthenticatedRequest['shopName'];
  };
};

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Permissions the route needs (all of them). */
    permissions?: readonly string[];
    /** The rate-limit counter the route counts in; `general` by default. */
    rateCounter?: RateCounter;
    /** Served without a session (the admin document, the admin login). Under the Open API's prefix every route needs a key. */
    public?: boolean;
  }
  interface FastifyRequest {
    /** The caller's key; reading it on a request that was not authenticated answers 401 (fail closed). */
    auth: AuthContext;
  }
}

const kAuth = Symbol('auth');
type WithAuth = { [kAuth]?: AuthContext };

/** The shop of the request's key, once authenticated; undefined before (or without a key), never a 401. */
export function keyShopId(request: FastifyRequest): string | undefined {
  return (request as FastifyRequest & WithAuth)[kAuth]?.shop.id;
}

const READ_METHODS = new Set(['GET', 'HEAD']);
/** User-session paths that answer an API key with 400 rather than 401. */
const SESSION_ONLY_REJECTING_KEYS = [/^\/session\/logout$/, /^\/push-subscriptions(\/|$)/];

/**
 * Every request under `prefix` is checked in this order (docs/decisions/0029-the-order-of-the-checks-on-a-request.md):
 * key in the URL → 401; Authorization missing, malformed or with a wrong check code → 401 (before
 * any query); key unknown, revoked or expired → 401; those three count against the client IP. Then
 * the request's rate counter → 429; shop suspended → 403; automation off → 403; the route's
 * permissions → 403; plan expired and not a read → 402. Only then a method the path lacks → 405
 * (method-not-allowed.ts, registered after this plugin), the body, the route. So every answer under
 * the prefix, an unknown path's 404 included, counts in exactly one counter and carries its headers.
 */
export const authenticationPlugin = fp<{ sql: Sql; prefix: string; sessionPrefix: string }>(async (app, { sql, prefix, sessionPrefix }) => {
  app.decorateRequest('auth', {
    getter(this: FastifyRequest & WithAuth): AuthContext {
      const auth = this[kAuth];
      if (!auth) throw new Problem('invalid-api-key', 'this path needs an API key in the Authorization header');
      return auth;
    },
    setter(this: FastifyRequest & WithAuth, auth: AuthContext) {
      this[kAuth] = auth;
    },
  });

  const refuseKey = async (request: FastifyRequest, reply: FastifyReply, detail: string): Promise<never> => {
    const hit = await countHit(sql, `ip:${clientAddressBucket(request.ip)}`);
    const state = setRateHeaders(reply, RATE_LIMITS.general, hit.hits, hit.windowStart);
    if (state.exceeded) throw rateLimited(state.resetSeconds);
    throw new Problem('invalid-api-key', detail);
  };

  app.addHook('onRequest', async (request, reply) => {
    if (!isUnderPrefix(request, prefix)) return;
    const config = request.routeOptions.config;
    const counter = config.rateCounter ?? 'general';

    if (containsApiKey(request.url)) {
      await refuseKey(
        request,
        reply,
        'API keys are accepted only in the Authorization header, never in the URL; treat this key as leaked and rotate it',
      );
    }
    const header = request.headers.authorization;
    const key = /^Bearer ([^\s]+)$/.exec(header ?? '')?.[1];
    if (!key) await refuseKey(request, reply, header ? 'Authorization must be "Bearer <API key>"' : 'the Authorization header is missing');
    if (!isWellFormedApiKey(key!)) await refuseKey(request, reply, 'the API key is malformed');

    const auth = await authenticateRequest(sql, hashApiKey(key!), counter);
    if (!auth) return refuseKey(request, reply, 'the API key is unknown, revoked or expired');

    const state = setRateHeaders(reply, RATE_LIMITS[counter], auth.hits, auth.windowStart);
    if (state.exceeded) throw rateLimited(state.resetSeconds);
    if (auth.suspended) throw new Problem('shop-suspended', 'the shop is suspended; no request is served until it is reinstated');
    if (!auth.automationEnabled) throw new Problem('automation-not-active', "the shop's plan does not include the automation feature");
    assertHolds(auth.permissions, config.permissions ?? [], `${request.method} ${request.routeOptions.url ?? request.url}`);
    if (auth.plan === 'expired' && !READ_METHODS.has(request.method)) {
      throw new Problem('subscription-expired', "the shop's plan has expired: reads work, writes wait for the renewal");
    }
    request.auth = {
      keyId: auth.keyId,
      applicationId: auth.applicationId,
      applicationName: auth.applicationName,
      permissions: auth.permissions,
      pageIds: auth.pageIds,
      shop: {
        id: auth.shopId,
        slug: auth.shopSlug,
        name: auth.shopName,
        plan: auth.plan,
        recomputeCeilingSeconds: auth.recomputeCeilingSeconds,
      },
    };
  });

  // A key cannot act as a user session (spec, Authentication 4).
  app.addHook('onRequest', async (request) => {
    if (!isUnderPrefix(request, sessionPrefix) || !/^Bearer svc_live_/.test(request.headers.authorization ?? '')) return;
    const path = (request.routeOptions.url ?? normalisedPath(request.url)).slice(sessionPrefix.length);
    if (SESSION_ONLY_REJECTING_KEYS.some((pattern) => pattern.test(path))) {
      throw new Problem('api-key-not-accepted', 'logout and push registration belong to user sessions; an API key is not accepted here');
    }
    throw new Problem('invalid-api-key', 'this path needs a logged-in user session; API keys are not accepted');
  });
});

/** A key anywhere in the URL, percent-encoded or not (`svc%5Flive_…` is the same leak). */
export function containsApiKey(url: string): boolean {
  return fullyDecoded(url).includes('svc_live_');
}
