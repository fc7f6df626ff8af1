import type { KeyObject } from 'node:crypto';
import { request, type Dispatcher } from 'undici';
import type { Sql } from '../../db/client.js';
import {
  ATTEMPT_TIMEOUT_MS,
  liveSigningSecrets,
  markDeliveryFailed,
  noteNextAttempt,
  recordAttempt,
  RESPONSE_EXCERPT_BYTES,
  retryAfterSeconds,
  signedHeaders,
  switchOffHttpSend,
  verdictForStatus,
  type AttemptRecord,
  type DeliveryRequest,
} from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { observeDeliveryFinished, observeWebhookAttempt } from '../../telemetry/delivery-metrics.js';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { inSpan, TRACE_ATTRIBUTES } from '../../telemetry/tracing.js';
import {
  assertDestinationAllowed,
  describeOutboundError,
  readBounded,
  type OutboundPolicy,
} from '../../adapters/outbound/outbound-http.js';

/**
 * The failure type of a delivery request whose seal does not verify for its run: the workflow fails
 * at once and nothing is sent. The delivery workflow restates it (workflow code imports no activity
 * code), typed by this constant so the two cannot drift.
 */
export const UNSEALED_REQUEST = 'UnsealedDeliveryRequest';

/**
 * A delivery workflow's input, sealed for its run (activities/sealed-activities.ts checks it before
 * each activity): one event for one flow (`deliveryId`
 * is the `webhook-id` of every attempt; `payload` the envelope, serialised once so every attempt
 * sends the same bytes), sealed by whoever started it (domain/flows/delivery-requests.ts, `Sealed`).
 */
export interface WebhookAttemptInput extends DeliveryRequest {
  /** A test-run from the flow builder: recorded apart from real deliveries. */
  testRun?: boolean;
  /** Waits between attempts; the production schedule unless a test run needs a shorter one. */
  retryDelaysMs?: number[];
  seal: string;
}

/** One attempt as recorded in the workflow history and the delivery history. */
export type WebhookAttempt = AttemptRecord & { retryAfterSeconds: number | null };

/** An attempt, and whether the send activity also recorded it in the delivery history. */
export interface SentAttempt {
  attempt: WebhookAttempt;
  recorded: boolean;
}

/** What the delivery activities work with: the database, the key of the secrets at rest, and the outbound agent. */
export interface DeliveryDeps {
  sql: Sql;
  secretsKey: KeyObject;
  dispatcher: Dispatcher;
  policy: OutboundPolicy;
  userAgent: string;
}

/** How long the send waits for its attempt's record before leaving it to the workflow's recording activity. */
const INLINE_RECORD_WAIT_MS = 5_000;

/**
 * A delivery's activities, top to bottom: sign and send one attempt, record its outcome, and the
 * database steps that close a delivery. Each takes the delivery's sealed request, checked by
 * activities/sealed-activities.ts before it runs.
 */
export function createDeliveryActivities(deps: DeliveryDeps) {
  /**
   * One signed POST in a client span of the delivery's trace: the receiver's host and answer, never
   * its full address (a query may hold the receiver's token).
   */
  function attemptDelivery(input: WebhookAttemptInput): Promise<WebhookAttempt> {
    const attributes = {
      [TRACE_ATTRIBUTES.shopId]: input.shopId,
      [TRACE_ATTRIBUTES.flowId]: input.flowId,
      [TRACE_ATTRIBUTES.eventId]: input.eventId,
      'http.request.method': 'POST',
      'server.address': URL.parse(input.url)?.hostname ?? '',
    };
    return inSpan(
      'POST',
      attributes,
      async (span) => {
        const attempt = await attemptOnce(input);
        if (attempt.statusCode !== null) span.setAttribute('http.response.status_code', attempt.statusCode);
        if (attempt.verdict !== 'delivered')
          span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.error ?? `HTTP ${attempt.statusCode}` });
        return attempt;
      },
      undefined,
      SpanKind.CLIENT,
    );
  }

  /** One signed POST; every failure (refused address, TLS, time-out, network) is a failed attempt. */
  async function attemptOnce(input: WebhookAttemptInput): Promise<WebhookAttempt> {
    const attemptedAt = new Date();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = assertDestinationAllowed(input.url, deps.policy);
      // The HTTP-send block's live secrets, newest first (two during a rotation's overlap).
      const secrets = await withShop(deps.sql, input.shopId, (tx) => liveSigningSecrets(tx, input.flowId, deps.secretsKey));
      const response = await request(url, {
        method: 'POST',
        dispatcher: deps.dispatcher,
        headers: {
          ...signedHeaders(secrets, input.deliveryId, attemptedAt, input.payload),
          'content-type': 'application/json',
          'user-agent': deps.userAgent,
        },
        body: input.payload,
        headersTimeout: ATTEMPT_TIMEOUT_MS,
        bodyTimeout: ATTEMPT_TIMEOUT_MS,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      const excerpt = (await readBounded(response.body, RESPONSE_EXCERPT_BYTES, { truncate: true })).toString('utf8');
      const retryAfter = retryAfterSeconds(response.statusCode, headerValue(response.headers['retry-after']), new Date());
      return {
        attemptedAt: attemptedAt.toISOString(),
        statusCode: response.statusCode,
        durationMs: elapsed(),
        responseExcerpt: excerpt,
        error: null,
        retryAfterSeconds: retryAfter ?? null,
        verdict: verdictForStatus(response.statusCode),
      };
    } catch (error) {
      return {
        attemptedAt: attemptedAt.toISOString(),
        statusCode: null,
        durationMs: elapsed(),
        responseExcerpt: '',
        error: describeOutboundError(error),
        retryAfterSeconds: null,
        verdict: 'retry',
      };
    }
  }

  /** Keeps an attempt for the delivery history. */
  async function recordCheckedAttempt(input: WebhookAttemptInput, workflowId: string, attempt: WebhookAttempt): Promise<void> {
    const { shopId, flowId, eventId, eventType, deliveryId, testRun } = input;
    const about = input.about?.record ?? null;
    // A test-run's event is stored nowhere else: its sent data is kept with it, for the history.
    const test = testRun ? { testRun, testData: (JSON.parse(input.payload) as { data?: unknown }).data ?? null } : {};
    const delivery = { shopId, flowId, eventId, eventType, deliveryId, workflowId, about, ...test };
    await withShop(deps.sql, shopId, (tx) => recordAttempt(tx, delivery, attempt));
  }

  return {
    /**
     * Makes exactly one attempt (the workflow owns the retry schedule), then tries once to record it:
     * a delivery's happy path is one local activity, so one workflow task. A record that fails is
     * reported, not thrown: the POST is never repeated for it, the workflow records it apart.
     * `number` is the attempt's place in the schedule, for the metrics (runs started before it was
     * passed leave it out).
     */
    async sendWebhook(input: WebhookAttemptInput, workflowId: string, number?: number): Promise<SentAttempt> {
      const attempt = await attemptDelivery(input);
      observeWebhookAttempt({
        outcome: attempt.verdict,
        statusCode: attempt.statusCode,
        durationMs: attempt.durationMs,
        attempt: number,
        testRun: input.testRun ?? false,
      });
      // Bounded well inside the activity's 30 s: a database that hangs must not time the activity out
      // after a POST (that would count as a failed attempt and post again). A record that commits after
      // the wait and the workflow's own record of it are one row (recordAttempt is idempotent).
      let timer: NodeJS.Timeout | undefined;
      const recorded = await Promise.race([
        recordCheckedAttempt(input, workflowId, attempt).then(
          () => true,
          () => false,
        ),
        new Promise<false>((resolve) => (timer = setTimeout(resolve, INLINE_RECORD_WAIT_MS, false))),
      ]);
      clearTimeout(timer);
      return { attempt, recorded };
    },
    /**
     * Records an attempt the send could not record, retried by the workflow until the database
     * answers; it never turns a delivered webhook into a failed attempt.
     */
    async recordWebhookAttempt(input: WebhookAttemptInput, workflowId: string, attempt: WebhookAttempt): Promise<void> {
      await recordCheckedAttempt(input, workflowId, attempt);
    },

    /** The receiver answered 410 Gone: no more deliveries to this HTTP-send block until it is switched on again. */
    async switchOffHttpSend(delivery: WebhookAttemptInput, reason: string): Promise<void> {
      await withShop(deps.sql, delivery.shopId, (tx) => switchOffHttpSend(tx, delivery.flowId, reason));
    },

    /** A retrying delivery's next attempt, for the delivery history: when, and how many are left counting it. */
    async noteNextAttempt(delivery: WebhookAttemptInput, next: { at: string; attemptsLeft: number }): Promise<void> {
      await withShop(deps.sql, delivery.shopId, (tx) => noteNextAttempt(tx, delivery.deliveryId, next));
    },

    /** The retry schedule ran out: the delivery shows as failed, and the admin may resend it. */
    async markDeliveryFailed(delivery: WebhookAttemptInput): Promise<void> {
      await withShop(deps.sql, delivery.shopId, (tx) => markDeliveryFailed(tx, delivery.deliveryId));
      observeDeliveryFinished('failed', delivery.testRun ?? false);
    },
  };
}

export type DeliveryActivities = ReturnType<typeof createDeliveryActivities>;

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
