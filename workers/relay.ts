import { Client, Connection } from '@temporalio/client';
import { loadSettings } from '../config/settings.js';
import { createSql } from '../db/client.js';
import { OutboxRelay } from './outbox-relay.js';

const settings = loadSettings();
if (!settings.appDatabaseUrl) throw new Error('DATABASE_URL or APP_DATABASE_URL must be set');
const sql = createSql(settings.appDatabaseUrl, { max: 4, applicationName: 'shopflow-relay' });
const connection = await Connection.connect({ address: settings.TEMPORAL_ADDRESS });
const relay = new OutboxRelay({
  sql,
  temporal: new Client({ connection, namespace: settings.TEMPORAL_NAMESPACE }),
  taskQueue: settings.TEMPORAL_TASK_QUEUE,
  log: (message, details) => console.error(JSON.stringify({ level: 'warn', message, ...details })),
});
await relay.start();
console.error('outbox relay started: waiting for events (LISTEN shopflow_events, polling every second)');

const stop = async () => {
  await relay.stop();
  await Promise.allSettled([sql.end({ timeout: 5 }), connection.close()]);
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
