import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import { handleOnce, verifyWebhook, WebhookVerificationError, type SeenStore, type WebhookEvent, type WebhookHeaders } from './webhooks.js';

export interface WebhookReceiverOptions {
  /** The flow's signing secrets: one, or the old and the new during a rotation. */
  secrets: string | readonly string[] | (() => readonly string[]);
  /** Handles a verified event; a throw answers 500, so the sender delivers it again later. */
  onEvent: (event: WebhookEvent, delivery: { webhookId: string }) => void | Promise<void>;
  /** De-duplication by `webhook-id`; without it every delivery reaches `onEvent`. */
  seen?: SeenStore;
  /** Largest body accepted, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
}

interface Answer {
  status: number;
  body: string;
}

/** The answer to one delivery: 401 unless signed, 204 once handled (or already handled), 500 when `onEvent` failed. */
async function receive(options: WebhookReceiverOptions, headers: WebhookHeaders, rawBody: Uint8Array): Promise<Answer> {
  let event: WebhookEvent;
  try {
    event = verifyWebhook(typeof options.secrets === 'function' ? options.secrets() : options.secrets, headers, rawBody);
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { status: 401, body: 'invalid signature' };
    throw error;
  }
  const webhookId = String(headers instanceof Headers ? headers.get('webhook-id') : headers['webhook-id']);
  try {
    const handle = () => options.onEvent(event, { webhookId });
    await (options.seen ? handleOnce(options.seen, webhookId, handle) : handle());
    return { status: 204, body: '' };
  } catch {
    return { status: 500, body: 'not handled' };
  }
}

/** A handler for `node:http` (or `node:https`) servers: `http.createServer(nodeWebhookHandler({ … }))`. */
export function nodeWebhookHandler(options: WebhookReceiverOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const limit = options.maxBodyBytes ?? 1024 * 1024;
  return (request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    request.on('end', () => {
      const answer =
        request.method !== 'POST'
          ? Promise.resolve({ status: 405, body: 'POST only' })
          : size > limit
            ? Promise.resolve({ status: 413, body: 'body too large' })
            : receive(options, request.headers, Buffer.concat(chunks));
      void answer.then(
        ({ status, body }) => response.writeHead(status, { 'content-type': 'text/plain' }).end(body),
        () => response.writeHead(500).end(),
      );
    });
  };
}

/**
 * A Fastify plugin adding `POST <prefix>/` (register it with a `prefix`): the body is kept raw for
 * the signature, in this plugin's scope only.
 */
export const fastifyWebhooks: FastifyPluginAsync<WebhookReceiverOptions> = async (app, options) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: options.maxBodyBytes ?? 1024 * 1024 }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/', async (request, reply) => {
    const { status, body } = await receive(options, request.headers, request.body as Buffer);
    return reply.code(status).type('text/plain').send(body);
  });
};
