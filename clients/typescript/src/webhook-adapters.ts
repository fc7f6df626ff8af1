import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import {
  handleWebhookOnce,
  verifyWebhook,
  WebhookVerificationError,
  type SeenStore,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookIdStore,
} from './webhooks.js';

export interface WebhookReceiverOptions {
  /** The flow's signing secrets: one, or the old and the new during a rotation. */
  secrets: string | readonly string[] | (() => readonly string[]);
  /** Handles a verified event; a throw answers 500, so the sender delivers it again later. */
  onEvent: (event: WebhookEvent, delivery: { webhookId: string }) => void | Promise<void>;
  /** De-duplication by `webhook-id`; without it every delivery reaches `onEvent`. */
  seen?: WebhookIdStore | SeenStore;
  /** Largest body accepted, in bytes: past it the body is no longer read, the answer is 413. Default 2 MiB. */
  maxBodyBytes?: number;
  /**
   * How long `nodeWebhookHandler` waits for the whole body, in milliseconds: then it answers 408 and
   * closes the connection. Default 10 s (Shopflow sends a body in one go, and gives up an attempt
   * after 15 s). With Fastify, the server's `requestTimeout` bounds this.
   */
  readTimeoutMs?: number;
}

/** Shopflow caps a product's event data at 1.75 MiB (decision 0238): the envelope fits in 2 MiB. */
const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
const DEFAULT_READ_TIMEOUT_MS = 10_000;

interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * The answer to one delivery: 401 unless signed, 204 once handled (or handled before), 409 with
 * `Retry-After` while a duplicate is being handled (it may yet fail: the sender must come back), 500
 * when `onEvent` failed.
 */
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
    if (!options.seen) await handle();
    else if ((await handleWebhookOnce(options.seen, webhookId, handle)) === 'in-flight') {
      return { status: 409, body: 'being handled', headers: { 'retry-after': '1' } };
    }
    return { status: 204, body: '' };
  } catch {
    return { status: 500, body: 'not handled' };
  }
}

/**
 * A handler for `node:http` (or `node:https`) servers: `http.createServer(nodeWebhookHandler({ … }))`.
 * It reads at most `maxBodyBytes` and waits at most `readTimeoutMs` for them: past either it stops
 * reading, answers 413 or 408 and closes the connection, so a sender cannot hold memory or a socket.
 */
export function nodeWebhookHandler(options: WebhookReceiverOptions): (request: IncomingMessage, response: ServerResponse) => void {
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const timeoutMs = options.readTimeoutMs ?? DEFAULT_READ_TIMEOUT_MS;
  return (request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let answered = false;
    const answer = ({ status, body, headers }: Answer, close = false) => {
      answered = true;
      const head = { 'content-type': 'text/plain', ...headers, ...(close ? { connection: 'close' } : {}) };
      response.writeHead(status, head).end(body, close ? () => request.destroy() : undefined);
    };
    // Refused before the body is read whole: nothing more of it is read, and the connection closes.
    const refuse = (status: number, body: string) => {
      if (answered) return;
      request.pause();
      request.off('data', onData);
      answer({ status, body }, true);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) refuse(413, 'body too large');
      else chunks.push(chunk);
    };
    if (request.method !== 'POST') return refuse(405, 'POST only');
    if (Number(request.headers['content-length']) > limit) return refuse(413, 'body too large');
    const timer = setTimeout(() => refuse(408, 'body not received in time'), timeoutMs);
    request.on('data', onData);
    request.on('close', () => clearTimeout(timer));
    request.on('end', () => {
      clearTimeout(timer);
      if (answered) return;
      void receive(options, request.headers, Buffer.concat(chunks)).then(answer, () => answer({ status: 500, body: '' }));
    });
  };
}

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
