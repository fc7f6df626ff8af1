import { Gauge } from 'prom-client';

export interface QueueState {
  /** Events waiting for their deliveries to start. */
  queued: number;
  /** How long the oldest of them has waited, in seconds (0 when none waits). */
  oldestSeconds: number;
  /** Events taken off the queue because matching them to flows kept failing: each waits for an operator. */
  setAside: number;
}

/**
 * The outbox queue's depth, the age of its oldest event and the events set aside, read when
 * Prometheus scrapes: the relay's lag and what needs an operator, whether a relay runs or not.
 */
export function watchEventQueue(read: () => Promise<QueueState>): void {
  let reading: Promise<QueueState> | undefined;
  // Both gauges of one scrape share one read.
  const current = () => (reading ??= read().finally(() => setImmediate(() => (reading = undefined))));
  new Gauge({
    name: 'shopflow_relay_queued_events',
    help: 'Events in the outbox queue, waiting for their deliveries to start.',
    async collect() {
      this.set((await current()).queued);
    },
  });
  new Gauge({
    name: 'shopflow_relay_oldest_queued_event_age_seconds',
    help: "Age of the oldest event waiting in the outbox queue (0 when none waits): the relay's lag.",
    async collect() {
      this.set((await current()).oldestSeconds);
    },
  });
  new Gauge({
    name: 'shopflow_relay_set_aside_events',
    help: 'Events set aside because matching them to flows kept failing; each waits for an operator (admin events:set-aside).',
    async collect() {
      this.set((await current()).setAside);
    },
  });
}
