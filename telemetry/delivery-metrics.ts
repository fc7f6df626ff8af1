import { Counter, Histogram } from 'prom-client';

/** What became of one POST to a receiver: the verdict of its answer (domain/flows `verdictForStatus`). */
export type AttemptOutcome = 'delivered' | 'retry' | 'gone';
/** How a delivery ended: a 2xx, a 410 that switched the flow's sending off, or the schedule run out. */
export type DeliveryOutcome = 'delivered' | 'gone' | 'failed';

/** Attempts past this share one label value, so a long custom schedule cannot grow the series. */
const LAST_ATTEMPT_LABEL = 10;

const attempts = new Counter({
  name: 'shopflow_webhook_attempts_total',
  help: "Webhook POSTs by their outcome, the answer's status class (none: no answer) and the attempt's number in the schedule (test-runs apart).",
  labelNames: ['outcome', 'status_class', 'attempt', 'test_run'] as const,
});

const attemptSeconds = new Histogram({
  name: 'shopflow_webhook_attempt_duration_seconds',
  help: "How long a webhook POST took, from sending to the answer's end (or the failure), by outcome.",
  labelNames: ['outcome'] as const,
  buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
});

const finished = new Counter({
  name: 'shopflow_deliveries_finished_total',
  help: 'Deliveries that ended: delivered (a 2xx), gone (410, sending switched off) or failed (the schedule ran out).',
  labelNames: ['outcome', 'test_run'] as const,
});

export interface ObservedAttempt {
  outcome: AttemptOutcome;
  statusCode: number | null;
  durationMs: number;
  /** The attempt's number in its delivery's schedule, from 1 (unknown for runs started before it was passed). */
  attempt: number | undefined;
  testRun: boolean;
}

export function observeWebhookAttempt(observed: ObservedAttempt): void {
  const number = observed.attempt;
  const attempt = number === undefined ? 'unknown' : number >= LAST_ATTEMPT_LABEL ? `${LAST_ATTEMPT_LABEL}+` : String(number);
  attempts.inc({
    outcome: observed.outcome,
    status_class: observed.statusCode === null ? 'none' : `${Math.floor(observed.statusCode / 100)}xx`,
    attempt,
    test_run: String(observed.testRun),
  });
  attemptSeconds.observe({ outcome: observed.outcome }, observed.durationMs / 1000);
  if (observed.outcome !== 'retry') observeDeliveryFinished(observed.outcome, observed.testRun);
}

export function observeDeliveryFinished(outcome: DeliveryOutcome, testRun: boolean): void {
  finished.inc({ outcome, test_run: String(testRun) });
}
