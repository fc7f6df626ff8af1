import { timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { Sql } from '../../../db/client.js';
import { hasValidHubSignature, parseInboundWebhook, recordInboundWebhook, type ProfileLookup } from '../../../domain/chat/index.js';
import { Problem } from '../../../domain/kernel/index.js';
import { platformThrottlePlugin, type PlatformThrottleOptions } from '../../plugins/platform-throttle.js';

export const CHAT_WEBHOOK_PATH = '/platform/chat/webhook';

export interface ChatWebhookOptions {
  sql: Sql;
  /** The platform app's secret, which signs every webhook (`X-Hub-Signature-256`). */
  appSecret: string;
  /** The verify token the app's webhook subscription was set up with; without one, subscriptions are not answered. */
  verifyToken?: string;
  /** Asks the platform for the name and phone of a customer the page does not know yet. */
  profileOf?: ProfileLookup;
  /** The `/platform/*` throttle per client address (platform-throttle.ts); its default limit unless given. */
  throttle?: Pick<PlatformThrottleOptions, 'perMinute'>;
}

/**
 * The chat platform's webhook: public (outside /api/open/v1, no key), checked by the signature over
 * the exact body bytes, so this plugin reads JSON bodies as raw buffers. 200 once every item is
 * recorded; 401 on a bad signature; a failure to record is a 5xx, which the platform retries.
 * Throttled per client address with the other `/platform/*` routes.
 */
export const chatWebhookRoutes: FastifyPluginAsync<ChatWebhookOptions> = async (
  app,
  { sql, appSecret, verifyToken, profileOf, throttle },
) => {
  await app.register(platformThrottlePlugin, { sql, ...throttle });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.post(CHAT_WEBHOOK_PATH, { config: { public: true }, schema: { hide: true } }, async (request, reply) => {
    const rawBody = request.body as Buffer;
    const signature = request.headers['x-hub-signature-256'];
    if (!hasValidHubSignature(rawBody, typeof signature === 'string' ? signature : undefined, appSecret)) {
      throw new Problem('invalid-signature', 'X-Hub-Signature-256 does not match the body under the app secret');
    }
    let items;
    try {
      items = parseInboundWebhook(rawBody);
    } catch {
      throw new Problem('validation-failed', 'the body is not a page webhook');
    }
    const outcome = await recordInboundWebhook(sql, items, { profileOf });
    request.log.info({ chatWebhook: outcome }, 'chat webhook recorded');
    return reply.code(200).send({ received: true });
  });

  // The platform's subscription check: echo `hub.challenge` when `hub.verify_token` is ours.
  app.get<{ Querystring: Record<string, string | undefined> }>(
    CHAT_WEBHOOK_PATH,
    { config: { public: true }, schema: { hide: true } },
    async (request, reply) => {
      const query = request.query;
      const given = Buffer.from(query['hub.verify_token'] ?? '');
      const expected = Buffer.from(verifyToken ?? '');
      const verified =
        verifyToken !== undefined &&
        query['hub.mode'] === 'subscribe' &&
        given.length === expected.length &&
        timingSafeEqual(given, expected);
      if (!verified) throw new Problem('invalid-signature', 'hub.verify_token is not the one this webhook was set up with');
      return reply
        .code(200)
        .type('text/plain')
        .send(query['hub.challenge'] ?? '');
    },
  );
};
