import { Connection } from '@temporalio/client';
import { loadSettings } from '../config/settings.js';
import { createAppSql } from '../db/client.js';
import { buildApp } from './app.js';

const settings = loadSettings();
const sql = createAppSql(settings, 'shopflow-api');
// Lazy: the API serves its other routes while Temporal is down; /readyz tells.
const temporal = Connection.lazy({ address: settings.TEMPORAL_ADDRESS });
const app = await buildApp({ sql, temporal, publicBaseUrl: settings.publicBaseUrl, cursorSecret: settings.CURSOR_SECRET, secretsKey: settings.secretsKey, temporalNamespace: settings.TEMPORAL_NAMESPACE, temporalTaskQueue: settings.TEMPORAL_TASK_QUEUE, temporalUiUrl: settings.TEMPORAL_UI_URL, logger: { level: settings.LOG_LEVEL } });

const shutdown = async () => {
  await app.close();
  await Promise.allSettled([sql.end({ timeout: 5 }), temporal.close()]);
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);

await app.listen({ host: settings.HOST, port: settings.PORT });
