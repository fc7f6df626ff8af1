import { prepareWorkerProcess } from './setup/create-worker.js';
import { ensureHousekeepingSchedule } from '../workflows/housekeeping/housekeeping-starter.js';
import { temporalClient } from '../config/temporal-connection.js';
import { shipmentTaskQueue } from '../workflows/shipments/shipment-starter.js';

// Two workers on one connection: the main queue (deliveries, test-runs, housekeeping, older shipment
// runs) and the shipments' queue, which API processes poll too (docs/behaviour/shipments.md).
const { settings, sql, connection, worker, shipmentWorker, metrics, tracing } = await prepareWorkerProcess(
  'shopflow-worker',
  (s) => s.WORKER_METRICS_PORT,
  { shipments: true },
);
await ensureHousekeepingSchedule(temporalClient(connection, settings.payloadCodecKeys, settings.TEMPORAL_NAMESPACE), {
  taskQueue: settings.TEMPORAL_TASK_QUEUE,
});
console.error(
  `worker polling task queues "${settings.TEMPORAL_TASK_QUEUE}" and "${shipmentTaskQueue(settings.TEMPORAL_TASK_QUEUE)}" on ${settings.TEMPORAL_ADDRESS}; ${metrics ? `metrics at ${metrics.url}` : 'metrics off'}`,
);
// Worker.run() returns after SIGINT/SIGTERM once in-flight tasks are done (the SDK installs the handlers).
await Promise.all([worker.run(), shipmentWorker?.run()]);
await Promise.all([connection.close(), metrics?.close(), tracing.shutdown()]);
await sql.end({ timeout: 5 });
