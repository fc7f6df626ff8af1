import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  defineSignal,
  log,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type {
  DeliveryActivities,
  SentAttempt,
  UNSEALED_REQUEST as UnsealedRequest,
  WebhookAttempt,
  WebhookAttemptInput,
} from '../../activities/deliveries/delivery-activities.js';
import { DeliveryStatusKey } from '../search-attributes.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Waits after the immediate first attempt (DESIGN.md, webhook delivery): about 27.5 h in all. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

export const JITTER_RATIO = 0.2;

/**
 * The wait before the next attempt: the scheduled delay with ±20 % jitter, or the receiver's
 * `Retry-After` when that is longer, capped at the schedule's longest step.
 * `random` is in [0, 1); inside a workflow it is Temporal's deterministic Math.random.
 */
export function nextDelayMs(scheduled: number, longest: number, random: number, retryAfterSeconds?: number): number {
  const jittered = Math.round(scheduled * (1 - JITTER_RATIO + 2 * JITTER_RATIO * random));
  if (retryAfterSeconds === undefined) return jittered;
  return Math.min(Math.max(jittered, retryAfterSeconds * SECOND), Math.max(longest, jittered));
}

/** The activities' failure type of an unsealed request, restated: workflow code imports no activity code; the compiler holds both the same. */
const UNSEALED_REQUEST: typeof UnsealedRequest = 'UnsealedDeliveryRequest';
/** A delivery: what each attempt sends, and the waits between attempts (types only: workflows import no code from activities). */
export type DeliveryInput = WebhookAttemptInput;

export type DeliveryStatus = 'delivering' | 'retrying' | 'delivered' | 'failed' | 'gone';

export interface DeliveryResult {
  status: Exclude<DeliveryStatus, 'delivering' | 'retrying'>;
  attempts: WebhookAttempt[];
}

/**
 * The failure type of a delivery that ended without a 2xx (410 Gone, or the schedule ran out): the run
 * closes as Failed, in Temporal's own colours, with its `DeliveryResult` as the failure's details.
 */
export const UNDELIVERED = 'DeliveryUndelivered';

/**
 * A person asks for the next attempt at once (the admin app's "retry now"): the current wait ends.
 * It carries nothing: the attempt sends the sealed request, as any attempt.
 */
export const retryNowSignal = defineSignal('retryNow');

// A local activity: it runs in the worker that runs the workflow, its result is recorded in the
// history as a marker, and the server dispatches no activity task (most of a delivery's cost on it).
// One attempt per run: the delivery schedule below is the only retry loop. It also records the
// attempt, so a delivered webhook is one local activity and its run closes in its first workflow task.
const { sendWebhook } = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 1 },
});
// Only when the send could not record its attempt: retries until the database answers (a longer
// wait becomes a timer in the history).
const { recordWebhookAttempt } = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
const { switchOffHttpSend, markDeliveryFailed } = proxyActivities<DeliveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 20, initialInterval: '1 second', maximumInterval: '1 minute' },
});
// What the history shows of a wait: a few tries, then the wait goes on without it (it informs, it decides nothing).
const { noteNextAttempt } = proxyLocalActivities<DeliveryActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { maximumAttempts: 3 },
});

/**
 * One webhook delivery: an immediate attempt, then the retry schedule with jitter, until a 2xx,
 * a 410 or the end of the schedule. Every attempt is an activity result in this workflow's history.
 */
export async function deliveryWorkflow(input: DeliveryInput): Promise<DeliveryResult> {
  const delays = input.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
  const longest = Math.max(...delays);
  const attempts: WebhookAttempt[] = [];
  let retryAsked = false;
  setHandler(retryNowSignal, () => void (retryAsked = true));
  for (let attemptIndex = 0; ; attemptIndex += 1) {
    const attempt = await attemptOnce(input, attemptIndex + 1);
    attempts.push(attempt);
    if (attempt.verdict === 'gone') {
      await switchOffHttpSend(input, `the receiver answered 410 Gone to delivery ${input.deliveryId}`);
    }
    if (attempt.verdict === 'delivered') {
      setStatus('delivered');
      return { status: 'delivered', attempts };
    }
    if (attempt.verdict === 'gone') {
      setStatus('gone');
      throw undelivered(
        { status: 'gone', attempts },
        `receiver answered 410 Gone on attempt ${attempts.length}: the flow's sending was switched off`,
      );
    }
    const scheduled = delays[attemptIndex];
    if (scheduled === undefined) break;
    // Set once: each upsert is a history event and a write to the visibility store.
    if (attemptIndex === 0) setStatus('retrying');
    const wait = nextDelayMs(scheduled, longest, Math.random(), attempt.retryAfterSeconds ?? undefined);
    log.info('delivery attempt failed; retrying', { attempt: attemptIndex + 1, statusCode: attempt.statusCode, waitMs: wait });
    // The timer's summary is the attempt's outcome, shown in the UI's timeline without expanding anything.
    const summary = `${attemptOutcome(input, attempt)}; attempt ${attemptIndex + 2} in ${Math.round(wait / 1000)} s`;
    // Only an ask during this wait ends it: one made while an attempt ran was answered by that attempt.
    retryAsked = false;
    const next = { at: new Date(Date.now() + wait).toISOString(), attemptsLeft: delays.length - attemptIndex };
    await noteNextAttempt(input, next).catch((error: unknown) => log.warn('the next attempt was not noted', { error: String(error) }));
    await condition(() => retryAsked, wait, { summary });
  }
  await markDeliveryFailed(input);
  setStatus('failed');
  const last = attempts[attempts.length - 1]!;
  const answer = last.statusCode === null ? `gave ${answerOf(last)}` : `answered ${answerOf(last)}`;
  throw undelivered({ status: 'failed', attempts }, `receiver ${answer} on attempt ${attempts.length}, the last of the schedule`);
}

/** An undelivered run fails with `message` (what an operator reads in the Temporal UI) and the result as details. */
function undelivered(result: DeliveryResult, message: string): ApplicationFailure {
  return ApplicationFailure.create({ message, type: UNDELIVERED, nonRetryable: true, details: [result] });
}

/** One POST and its record in the delivery history, recorded apart when the send could not. */
async function attemptOnce(input: DeliveryInput, number: number): Promise<WebhookAttempt> {
  const { workflowId } = workflowInfo();
  const { attempt, recorded } = await postOnce(input, workflowId, number);
  if (!recorded) await recordWebhookAttempt(input, workflowId, attempt);
  return attempt;
}

/** An activity that crashed or timed out counts as a failed attempt, like a network error; an unsealed request ends the run. */
async function postOnce(input: WebhookAttemptInput, workflowId: string, number: number): Promise<SentAttempt> {
  const startedAt = Date.now();
  try {
    return await sendWebhook.executeWithOptions({ summary: `attempt ${number}: POST ${destination(input)}` }, [input, workflowId, number]);
  } catch (error) {
    if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === UNSEALED_REQUEST) {
      throw ApplicationFailure.nonRetryable(error.cause.message, UNSEALED_REQUEST);
    }
    const attempt: WebhookAttempt = {
      attemptedAt: new Date(startedAt).toISOString(),
      statusCode: null,
      durationMs: Date.now() - startedAt,
      responseExcerpt: '',
      error: error instanceof Error ? error.message : String(error),
      retryAfterSeconds: null,
      verdict: 'retry',
    };
    return { attempt, recorded: false };
  }
}

/** The receiver's address without its query or fragment: what an operator may read of it (a query may hold a token). */
function destination(input: DeliveryInput): string {
  return input.url.split(/[?#]/)[0]!;
}

/** The receiver's status code, or `no answer (<the error>)`. */
function answerOf(attempt: WebhookAttempt): string {
  return attempt.statusCode === null ? `no answer (${attempt.error ?? 'no response'})` : String(attempt.statusCode);
}

/** `POST https://… → 500 in 120 ms`, or the error when there was no answer. */
function attemptOutcome(input: DeliveryInput, attempt: WebhookAttempt): string {
  return `POST ${destination(input)} → ${answerOf(attempt)} in ${attempt.durationMs} ms`;
}

function setStatus(status: DeliveryStatus): void {
  upsertSearchAttributes([{ key: DeliveryStatusKey, value: status }]);
}
