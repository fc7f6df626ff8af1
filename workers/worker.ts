import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { loadSettings } from '../config/settings.js';
import { createSql } from '../db/client.js';
import { createShopflowWorker, outboundPolicyFrom } from './create-worker.js';

const settings = loadSettings();
// The SDK logs every bundle and state change at INFO; warnings and errors are what an operator needs here.
Runtime.install({ logger: new DefaultLogger(settings.LOG_LEVEL === 'debug' || settings.LOG_LEVEL === 'trace' ? 'DEBUG' : 'WARN') });
if (!settings.appDatabaseUrl) throw new Error('DATABASE_URL or APP_DATABASE_URL must be set');
const sql = createSql(settings.appDatabaseUrl, { max: settings.DB_POOL_MAX, applicationName: 'shopflow-worker' });
const connection = await NativeConnection.connect({ address: settings.TEMPORAL_ADDRESS });
const worker = await createShopflowWorker({
  connection,
  namespace: settings.TEMPORAL_NAMESPACE,
  taskQueue: settings.TEMPORAL_TASK_QUEUE,
  sql,
  policy: outboundPolicyFrom(settings),
});
console.error(`worker polling task queue "${settings.TEMPORAL_TASK_QUEUE}" on ${settings.TEMPORAL_ADDRESS}`);
// Worker.run() returns after SIGINT/SIGTERM once in-flight tasks are done (the SDK installs the handlers).
await worker.run();
await connection.close();
await sql.end({ timeout: 5 });
