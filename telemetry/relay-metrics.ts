import { Gauge, register } from 'prom-client';

export interface QueueState {
  /** Events waiting for their deliveries to start. */
  queued: number;
  /** How long the oldest of them has waited, in seconds (0 when none waits). */
  oldestSeconds: number;
  /** Events taken off the queue because matching them to flows kept failing: each waits for an operator. */
  setAside: number;
}

/** Each gauge of the queue: its name, its help, and its value in a reading. */
const QUEUE_GAUGES: readonly [name: string, help: string, value: (state: QueueState) => number][] = [
  ['shopflow_relay_queued_events', 'Events in the outbox queue, waiting for their deliveries to start.', (state) => state.queued],
  [
    'shopflow_relay_oldest_queued_event_age_seconds',
    "Age of the oldest event waiting in the outbox queue (0 when none waits): the relay's lag.",
    (state) => state.oldestSeconds,
  ],
  [
    'shopflow_relay_set_aside_events',
    'Events set aside because matching them to flows kept failing; each waits for an operator (admin events:set-aside).',
    (state) => state.setAside,
  ],
];

/**
 * The outbox queue's depth, the age of its oldest event and the events set aside, read when
 * Prometheus scrapes: the relay's lag and what needs an operator, whether a relay runs or not.
 * Answers the end of the watch: the gauges leave the registry (a test's database ends with it).
 */
export function watchEventQueue(read: () => Promise<QueueState>): () => void {
  let reading: Promise<QueueState> | undefined;
  // The gauges of one scrape share one read.
  const current = () => (reading ??= read().finally(() => setImmediate(() => (reading = undefined))));
  for (const [name, help, value] of QUEUE_GAUGES)
    new Gauge({
      name,
      help,
      async collect() {
        this.set(value(await current()));
      },
    });
  return () => {
    for (const [name] of QUEUE_GAUGES) register.removeSingleMetric(name);
  };
}

/**
 * The slowest pace the relay gives a shop with a backlog while others have events (ShopPace): from one
 * event a second up to the configured pace as the machine has room. Low for long: the machine is
 * short of CPU for its shops. Answers the end of the watch, as `watchEventQueue`.
 */
export function watchBacklogPace(read: () => number): () => void {
  const name = 'shopflow_relay_backlog_pace_events_per_second';
  new Gauge({
    name,
    help: "The slowest pace, in events a second, the relay gives a shop with a backlog while other shops have events: from 1 up to the configured pace as the machine's CPU has room.",
    collect() {
      this.set(read());
    },
  });
  return () => register.removeSingleMetric(name);
}
