import { Connection } from '@temporalio/client';
import { loadSettings } from '../config/settings.js';
import { temporalConnectionOptions } from '../config/temporal-connection.js';
import { createAppSql } from '../db/client.js';
import { outboundPolicyFrom } from '../adapters/outbound/outbound-http.js';
import { buildApp } from './app.js';
import { serveMetrics } from '../telemetry/metrics-server.js';

const settings = loadSettings();
const sql = createAppSql(settings, 'shopflow-api');
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
  deliveryRequestKey: settings.DELIVERY_REQUEST_KEY,
  trustProxy: settings.TRUST_PROXY,
  requestTimeoutMs: settings.REQUEST_TIMEOUT_MS,
  shipments: { waitMs: settings.SHIPMENT_WAIT_MS, pollEveryMs: settings.SHIPMENT_POLL_MS },
  chatWebhook: settings.chatWebhook,
  chatPlatformUrl: settings.CHAT_PLATFORM_URL,
  outbound: outboundPolicyFrom(settings),
  carrierEndpoints: settings.carrierEndpoints,
  requestMetrics: settings.METRICS === 'on',
  retention: settings.retention,
  logger: { level: settings.LOG_LEVEL },
});

const metrics =
  settings.METRICS === 'on' ? await serveMetrics({ host: settings.METRICS_HOST, port: settings.API_METRICS_PORT }) : undefined;
const shutdown = async () => {
  await Promise.all([app.close(), metrics?.close()]);
  await Promise.allSettled([sql.end({ timeout: 5 }), temporal.close()]);
  process.exit(0);
};
process.once('SIGINT', shutdown);
process.once('SIGTERM', shutdown);

await app.listen({ host: settings.HOST, port: settings.PORT });
app.log.info(metrics ? `metrics at ${metrics.url}` : 'metrics off (METRICS=off)');
