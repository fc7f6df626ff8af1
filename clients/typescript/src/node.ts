import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_READ_TIMEOUT_MS, receive, type Answer, type WebhookReceiverOptions } from './webhook-receiver.js';

export type { WebhookReceiverOptions } from './webhook-receiver.js';

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
