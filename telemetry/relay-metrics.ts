import { Gauge } from 'prom-client';

export interface QueueState {
  /** Events waiting for their deliveries to start. */
  queued: number;
  /** How long the oldest of them has waited, in seconds (0 when none waits). */
  oldestSeconds: number;
}

/**
 * The outbox queue's depth and the age of its oldest event, read when Prometheus scrapes: the
 * relay's lag, whether a relay runs or not.
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
}
