import { createHmac, randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { request, type Dispatcher } from 'undici';
import type { SimulatorClock } from './clock.js';
import type { App } from './store.js';

export interface WebhookAttempt {
  at: Date;
  /** The callback's HTTP status, or unset when no answer came (see `error`). */
  status?: number;
  error?: string;
}

export interface WebhookDelivery {
  id: string;
  appId: string;
  url: string;
  /** What the event was about, for people reading the list (`message from 123`, `comment hide`). */
  summary: string;
  /** The exact bytes sent (and signed). */
  body: string;
  signature: string;
  state: 'pending' | 'delivered' | 'failed';
  attempts: WebhookAttempt[];
}

export interface WebhookSenderOptions {
  /** Waits between attempts; their count + 1 is the number of attempts. */
  retryDelaysMs: number[];
  attemptTimeoutMs: number;
  /** For an HTTPS callback with a private CA (the local receivers' self-signed certificate). */
  dispatcher?: Dispatcher;
}

/** `X-Hub-Signature-256`: `sha256=` and the hex HMAC-SHA256 of the raw body under the app secret. */
export function hubSignature256(body: string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(body).digest('hex')}`;
}

/** The older `X-Hub-Signature` (SHA-1), which the platform still sends beside the SHA-256 one. */
function hubSignature1(body: string, appSecret: string): string {
  return `sha1=${createHmac('sha1', appSecret).update(body).digest('hex')}`;
}

/**
 * Posts signed events to an app's callback URL, retrying on a non-2xx answer, a network error or a
 * time-out. Every delivery runs on its own (a slow callback holds up no other event) and is kept in
 * a log that controls and tests read.
 */
export class WebhookSender {
  private readonly log: WebhookDelivery[] = [];
  private readonly running = new Set<Promise<void>>();
  private readonly stopping = new AbortController();

  private readonly options: WebhookSenderOptions;
  private readonly clock: SimulatorClock;

  constructor(options: WebhookSenderOptions, clock: SimulatorClock) {
    this.options = options;
    this.clock = clock;
    // Every delivery in flight listens to the one stop signal: hundreds at once under load are expected.
    setMaxListeners(0, this.stopping.signal);
  }

  /** Starts the delivery of `payload` to the app's callback; nothing is sent without one. */
  send(app: App, summary: string, payload: object): WebhookDelivery | undefined {
    if (!app.callbackUrl) return undefined;
    const body = JSON.stringify(payload);
    const delivery: WebhookDelivery = {
      id: randomUUID(),
      appId: app.id,
      url: app.callbackUrl,
      summary,
      body,
      signature: hubSignature256(body, app.secret),
      state: 'pending',
      attempts: [],
    };
    this.log.push(delivery);
    const run = this.deliver(delivery, hubSignature1(body, app.secret)).finally(() => this.running.delete(run));
    this.running.add(run);
    return delivery;
  }

  deliveries(): WebhookDelivery[] {
    return [...this.log];
  }

  /** Resolves when every delivery started so far has been delivered or has failed for good. */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Stops retrying; deliveries still pending end as failed. */
  async close(): Promise<void> {
    this.stopping.abort();
    await this.settled();
  }

  private async deliver(delivery: WebhookDelivery, sha1Signature: string): Promise<void> {
    for (const delayBefore of [0, ...this.options.retryDelaysMs]) {
      if (delayBefore > 0 && !(await this.wait(delayBefore))) break;
      const attempt = await this.attempt(delivery, sha1Signature);
      delivery.attempts.push(attempt);
      if (attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300) {
        delivery.state = 'delivered';
        return;
      }
      if (this.stopping.signal.aborted) break;
    }
    delivery.state = 'failed';
  }

  private async attempt(delivery: WebhookDelivery, sha1Signature: string): Promise<WebhookAttempt> {
    const at = this.clock.now();
    try {
      const response = await request(delivery.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': delivery.signature, 'x-hub-signature': sha1Signature },
        body: delivery.body,
        headersTimeout: this.options.attemptTimeoutMs,
        bodyTimeout: this.options.attemptTimeoutMs,
        signal: this.stopping.signal,
        ...(this.options.dispatcher ? { dispatcher: this.options.dispatcher } : {}),
      });
      await response.body.dump();
      return { at, status: response.statusCode };
    } catch (error) {
      return { at, error: (error as Error).message };
    }
  }

  /** False when the sender is closed during the wait. */
  private async wait(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.stopping.signal });
      return true;
    } catch {
      return false;
    }
  }
}
