import type { FastifyPluginAsync } from 'fastify';
import { DEFAULT_MAX_BODY_BYTES, receive, type WebhookReceiverOptions } from './webhook-receiver.js';

export type { WebhookReceiverOptions } from './webhook-receiver.js';

/**
 * A Fastify plugin adding `POST <prefix>/` (register it with a `prefix`): the body is kept raw for
 * the signature, in this plugin's scope only.
 */
export const fastifyWebhooks: FastifyPluginAsync<WebhookReceiverOptions> = async (app, options) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/', async (request, reply) => {
    const { status, body, headers = {} } = await receive(options, request.headers, request.body as Buffer);
    return reply.code(status).headers(headers).type('text/plain').send(body);
  });
};
