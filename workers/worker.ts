import { prepareWorkerProcess } from './create-worker.js';

const { settings, sql, connection, worker } = await prepareWorkerProcess('shopflow-worker');
console.error(`worker polling task queue "${settings.TEMPORAL_TASK_QUEUE}" on ${settings.TEMPORAL_ADDRESS}`);
// Worker.run() returns after SIGINT/SIGTERM once in-flight tasks are done (the SDK installs the handlers).
await worker.run();
await connection.close();
await sql.end({ timeout: 5 });
