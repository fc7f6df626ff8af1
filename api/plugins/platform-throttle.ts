import fp from 'fastify-plugin';
import type { Sql } from '../../db/client.js';
import { enforceRate } from '../../domain/access/index.js';
import { clientAddressBucket } from './client-address.js';

/**
 * Requests a minute per client address to the platform's public callbacks (`/platform/*`: carrier
 * status callbacks, the chat platform's webhook), together. Generous: a carrier or the chat platform
 * calls from a few addresses for every shop at once, while one client guessing callback secrets or
 * flooding the webhook is held to it (docs/security.md, "Platform callbacks").
 */
export const PLATFORM_REQUESTS_PER_MINUTE = 1200;

export interface PlatformThrottleOptions {
  sql: Sql;
  /** `PLATFORM_REQUESTS_PER_MINUTE` unless given (tests). */
  perMinute?: number;
}

/**
 * Counts each request of the routes of the plugin that registers this one against its client
 * address (`request.ip`, an IPv6 /64 as one) before anything else is read; over the limit it is 429
 * `rate-limited` with `Retry-After`.
 */
export const platformThrottlePlugin = fp<PlatformThrottleOptions>(async (app, { sql, perMinute = PLATFORM_REQUESTS_PER_MINUTE }) => {
  app.addHook('onRequest', async (request) => {
    await enforceRate(sql, `platform:ip:${clientAddressBucket(request.ip)}`, perMinute, 'requests from this address');
  });
});
