import { Connection } from '@temporalio/client';
import { loadSettings } from '../config/settings.js';
import { temporalConnectionOptions } from '../config/temporal-connection.js';
import { createAppSql, outliveClosedConnections } from '../db/client.js';
import { outboundPolicyFrom } from '../adapters/outbound/outbound-http.js';
import { buildApp } from './app.js';
import { serveMetrics } from '../telemetry/metrics-server.js';
import { startTracing } from '../telemetry/tracing.js';
// The one import of workers/ in the API: its process hosts the shipments' worker (docs/behaviour/shipments.md).
import { hostApiShipmentWorker } from '../workers/setup/shipment-worker-host.js';

const settings = loadSettings();
const tracing = startTracing('shopflow-api', settings.OTEL_EXPORTER_OTLP_ENDPOINT);
const sql = createAppSql(settings, 'shopflow-api');
outliveClosedConnections((message) => console.error(JSON.stringify({ level: 'warn', message })));
// Lazy: the API serves its other routes while Temporal is down; /readyz tells.
const temporal = Connection.lazy(temporalConnectionOptions(settings));
const app = await buildApp({
  sql,
  temporal,
  publicBaseUrl: settings.publicBaseUrl,
  secureCookies: settings.secureCookies,
  cursorSecret: settings.CURSOR_SECRET,
  secretsKey: settings.secretsKey,
  temporalNamespace: settings.TEMPORAL_NAMESPACE,
  payloadCodecKeys: settings.payloadCodecKeys,
  codecOperatorToken: settings.codecOperatorToken,
  temporalTaskQueue: settings.TEMPORAL_TASK_QUEUE,
  temporalUiUrl: settings.TEMPORAL_UI_URL,
  workflowSealKey: settings.WORKFLOW_SEAL_KEY,
  trustProxy: settings.TRUST_PROXY,
  requestTimeoutMs: settings.REQUEST_TIMEOUT_MS,
  shipments: { waitMs: settings.SHIPMENT_WAIT_MS, pollEveryMs: settings.SHIPMENT_POLL_MS },
  ...(settings.SHIPMENT_WORKER === 'on' ? { eagerShipments: () => shipmentWorker?.host.eager() } : {}),
  chatWebhook: settings.chatWebhook,
  chatPlatformUrl: settings.CHAT_PLATFORM_URL,
  outbound: outboundPolicyFrom(settings),
  carrierEndpoints: settings.carrierEndpoints,
  requestMetrics: settings.METRICS === 'on',
  retention: settings.retention,
  logger: { level: settings.LOG_LEVEL },
});
// Connected in the background: the API serves while Temporal is down, pushes then through the server.
const shipmentWorker =
  settings.SHIPMENT_WORKER === 'on'
    ? await hostApiShipmentWorker(settings, sql, (level, message) => app.log[level](message), tracing)
    : undefined;
const metrics =
  shipmentWorker?.metrics ??
  (settings.SHIPMENT_WORKER === 'off' && settings.METRICS === 'on'
    ? await serveMetrics({ host: settings.METRICS_HOST, port: settings.API_METRICS_PORT })
    : undefined);

const shutdown = async () => {
  // Requests in flight may await the shipments' worker: it stops after them.
  await Promise.all([app.close(), metrics?.close()]);
  await shipmentWorker?.host.stop();
  await Promise.allSettled([sql.end({ timeout: 5 }), temporal.close(), tracing.shutdown()]);
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);

await app.listen({ host: settings.HOST, port: settings.PORT });
app.log.info(metrics ? `metrics at ${metrics.url}` : 'metrics off (METRICS=off)');
