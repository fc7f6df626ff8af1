/** What both receiver adapters share (`@shopflow/client/node`, `@shopflow/client/fastify`): the options and the answer to one delivery. */
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
export const DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024;
export const DEFAULT_READ_TIMEOUT_MS = 10_000;

export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/**
 * The answer to one delivery: 401 unless signed, 204 once handled (or handled before), 409 with
 * `Retry-After` while a duplicate is being handled (it may yet fail: the sender must come back), 500
 * when `onEvent` failed.
 */
export async function receive(options: WebhookReceiverOptions, headers: WebhookHeaders, rawBody: Uint8Array): Promise<Answer> {
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
