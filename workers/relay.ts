import { OutboxRelay } from '../workflows/deliveries/delivery-relay.js';
import { ShopPace } from '../workflows/deliveries/shop-pace.js';
import { prepareWorkerProcess, WORKFLOW_TASK_SLOTS } from './setup/create-worker.js';
import { machineBusyReader } from './setup/machine-load.js';
import { deliveryStarter } from '../workflows/deliveries/delivery-starter.js';
import { eventQueueState } from '../domain/events/index.js';
import { watchBacklogPace, watchEventQueue } from '../telemetry/relay-metrics.js';

// The relay hosts a worker on the connection its client uses, so the deliveries it starts run their
// first attempt right here (eager workflow start): no round trip through Temporal's task matching,
// which roughly quarters commit-to-receipt latency. Stand-alone workers (workers/worker.ts) take
// test-runs, resends, a backlog's deliveries (started through the task queue: decision 0266) and
// whatever this worker has no free slot for; the retries of a delivery started here stay here, on
// this worker's sticky queue (docs/behaviour/events.md). Two polls of the task queue, where the
// stand-alone workers keep the SDK's default: this worker helps there, it does not lead.
const { settings, sql, connection, worker, metrics, tracing } = await prepareWorkerProcess('shopflow-relay', (s) => s.RELAY_METRICS_PORT, {
  pollsAtMost: 2,
});
watchEventQueue(() => sql.begin((tx) => eventQueueState(tx)));
const pace = new ShopPace(settings.RELAY_SHOP_EVENTS_PER_SECOND, undefined, {
  machineBusy: settings.RELAY_PACE_FOLLOWS_LOAD ? machineBusyReader() : undefined,
});
watchBacklogPace(() => pace.backlogPerSecond);
const relay = new OutboxRelay({
  sql,
  deliveries: deliveryStarter(connection, settings),
  eagerStart: true,
  pace,
  room: () => {
    const status = worker.getStatus();
    return WORKFLOW_TASK_SLOTS - status.numInFlightWorkflowActivations - status.numInFlightLocalActivities;
  },
  log: (message, details) => console.error(JSON.stringify({ level: 'warn', message, ...details })),
});
// The SDK shuts the worker down on SIGINT/SIGTERM; the relay stops taking events first.
process.once('SIGINT', () => void relay.stop());
process.once('SIGTERM', () => void relay.stop());
const running = worker.run();
await relay.start();
console.error(
  `outbox relay started: waiting for events (LISTEN shopflow_events, polling every second), with a worker on task queue "${settings.TEMPORAL_TASK_QUEUE}"; ${metrics ? `metrics at ${metrics.url}` : 'metrics off'}`,
);
await running;
await relay.stop();
await Promise.all([connection.close(), metrics?.close(), tracing.shutdown()]);
await sql.end({ timeout: 5 });
