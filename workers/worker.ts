import { prepareWorkerProcess } from './setup/create-worker.js';
import { ensureHousekeepingSchedule } from '../workflows/housekeeping/housekeeping-starter.js';
import { temporalClient } from '../config/temporal-connection.js';

const { settings, sql, connection, worker, metrics } = await prepareWorkerProcess('shopflow-worker', (s) => s.WORKER_METRICS_PORT);
await ensureHousekeepingSchedule(temporalClient(connection, settings.payloadCodecKeys, settings.TEMPORAL_NAMESPACE), {
  taskQueue: settings.TEMPORAL_TASK_QUEUE,
});
console.error(
  `worker polling task queue "${settings.TEMPORAL_TASK_QUEUE}" on ${settings.TEMPORAL_ADDRESS}; ${metrics ? `metrics at ${metrics.url}` : 'metrics off'}`,
);
// Worker.run() returns after SIGINT/SIGTERM once in-flight tasks are done (the SDK installs the handlers).
await worker.run();
await Promise.all([connection.close(), metrics?.close()]);
await sql.end({ timeout: 5 });
