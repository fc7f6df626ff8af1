import { join } from 'node:path';
import { bootstrap } from './bootstrap/index.js';
import { dataDir } from './bootstrap/paths.js';
import { createSql } from '../db/client.js';
import { DEMO_OWNER, DEMO_SHOP_SLUG, seedDemoShop } from './seed/demo-shop.js';
import { seedDemoCarriers } from './seed/demo-carriers.js';
import { seedDemoChat } from './seed/demo-chat.js';
import { oneSeedAtATime } from './seed/one-seed-at-a-time.js';
import { loadSettings } from '../config/settings.js';
import { freePorts, waitFor } from './bootstrap/ports.js';
import { say } from './bootstrap/progress.js';
import { ProcessGroup } from './processes.js';
import { temporalEngine } from './bootstrap/temporal-cluster.js';

/** `npm run dev`: the whole stack on this machine, until Ctrl-C. */
// Said explicitly: without it every process (and the bootstrap's own settings) assumes production.
process.env.NODE_ENV = 'development';
const services = await bootstrap('shopflow');
const seedSql = createSql(services.appUrl, { max: 2, applicationName: 'shopflow-seed' });
const demo = await oneSeedAtATime(seedSql, () => seedDemoShop(seedSql, join(dataDir, 'demo-api-key')));
// Every port this run opens, each the next free one when busy (another run, another program): chosen
// here, before any server starts, and handed to the process that listens on it.
const preferred = {
  API: Number(process.env.PORT ?? 3000),
  'webhook receiver': Number(process.env.WEBHOOK_RECEIVER_PORT ?? 3443),
  'admin web app': Number(process.env.WEB_PORT ?? 5173),
  'carrier A': Number(process.env.CARRIER_A_PORT ?? 3601),
  'carrier B': Number(process.env.CARRIER_B_PORT ?? 3602),
  'chat platform': Number(process.env.CHAT_PLATFORM_PORT ?? 3480),
  'API metrics': Number(process.env.API_METRICS_PORT ?? 9464),
  'worker metrics': Number(process.env.WORKER_METRICS_PORT ?? 9465),
  'relay metrics': Number(process.env.RELAY_METRICS_PORT ?? 9466),
};
const ports = await freePorts(preferred);
const moved = (Object.keys(preferred) as (keyof typeof preferred)[]).filter((name) => ports[name] !== preferred[name]);
if (moved.length > 0)
  say(`› busy, so the next free port taken: ${moved.map((name) => `${name} ${preferred[name]} → ${ports[name]}`).join(', ')}`);
const apiUrl = `http://localhost:${ports.API}`;
const env = {
  ...services.env,
  NODE_ENV: 'development',
  PORT: String(ports.API),
  PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL ?? apiUrl,
  WEBHOOK_RECEIVER_PORT: String(ports['webhook receiver']),
  CARRIER_A_PORT: String(ports['carrier A']),
  CARRIER_B_PORT: String(ports['carrier B']),
  CHAT_PLATFORM_PORT: String(ports['chat platform']),
  API_METRICS_PORT: String(ports['API metrics']),
  WORKER_METRICS_PORT: String(ports['worker metrics']),
  RELAY_METRICS_PORT: String(ports['relay metrics']),
  // The chat simulator signs its webhooks with the same development app secret the API checks.
  CHAT_WEBHOOK_CALLBACK_URL: process.env.CHAT_WEBHOOK_CALLBACK_URL ?? `${apiUrl}/platform/chat/webhook`,
  CHAT_PLATFORM_URL: process.env.CHAT_PLATFORM_URL ?? `http://127.0.0.1:${ports['chat platform']}`,
  SIMULATOR_TLS_CERT_FILE: services.certificate.certFile,
  SIMULATOR_TLS_KEY_FILE: services.certificate.keyFile,
};

let shuttingDown = false;
const processes = new ProcessGroup((name, code) => {
  say(`✗ ${name} exited (code ${code}); stopping everything`);
  void shutdown(1);
});

async function shutdown(exitCode: number): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  say('\n› stopping…');
  await processes.stopAll();
  await services.stop();
  say('✓ stopped every process this command started');
  process.exit(exitCode);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));

processes.startTs('api', 'api/server.ts', env);
processes.startTs('worker', 'workers/worker.ts', env);
processes.startTs('relay', 'workers/relay.ts', env);
processes.startTs('simulators', 'simulators/main.ts', env);
processes.startTs('web', 'scripts/web-dev.ts', { ...env, WEB_PORT: String(ports['admin web app']), API_URL: apiUrl });

await waitFor('the API', async () => (await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.ok === true, 60_000);
// The demo shop's carrier connections, registered again at the simulators (they forget their accounts on exit).
const carrierUrls = {
  carrier_a: `http://127.0.0.1:${ports['carrier A']}`,
  carrier_b: `http://127.0.0.1:${ports['carrier B']}`,
};
const simulatorsUp = async () =>
  (
    await Promise.all(
      Object.values(carrierUrls).map((url) =>
        fetch(`${url}/_control/faults`).then(
          (r) => r.ok,
          () => false,
        ),
      ),
    )
  ).every(Boolean);
await waitFor('the carrier simulators', simulatorsUp, 60_000);
const { secretsKey, carrierEndpoints } = loadSettings(env);
await oneSeedAtATime(seedSql, () =>
  seedDemoCarriers(seedSql, demo.shopId, carrierUrls, { secretsKey, endpoints: carrierEndpoints, publicBaseUrl: env.PUBLIC_BASE_URL }),
);
await seedSql.end();
// The demo pages on the chat simulator (not on a platform CHAT_PLATFORM_URL names), with a few conversations.
if (!process.env.CHAT_PLATFORM_URL) {
  const chatUrl = env.CHAT_PLATFORM_URL;
  await waitFor('the chat simulator', async () => (await fetch(`${chatUrl}/_control`).catch(() => undefined))?.ok === true, 60_000);
  const chatSql = createSql(services.appUrl, { max: 2, applicationName: 'shopflow-seed' });
  await oneSeedAtATime(chatSql, () =>
    seedDemoChat(chatSql, { shopId: demo.shopId, platformUrl: chatUrl, secretsKey: loadSettings({ ...process.env, ...env }).secretsKey }),
  );
  await chatSql.end();
}

say(`
Shopflow is running.

  Admin web app       http://localhost:${ports['admin web app']}/admin/   (hot reload; log in with the demo owner below)
  API base URL        ${apiUrl}/api/open/v1
  API reference       ${apiUrl}/docs   (OpenAPI: ${apiUrl}/docs/json)
  Developer site      ${apiUrl}/developers   (getting started, webhooks, every error code)
  Health              ${apiUrl}/healthz, ${apiUrl}/readyz
  Metrics             ${(['API', 'worker', 'relay'] as const).map((name) => `${name} http://127.0.0.1:${ports[`${name} metrics`]}/metrics`).join(', ')}   (Prometheus; docs/operators.md, "Metrics")
  Temporal Web UI     ${services.temporalUiUrl}   (payloads encrypted: decode through the codec endpoint below)
  Codec endpoint      ${apiUrl}/temporal-codec   (log in at ${apiUrl}/temporal-codec/login with ${loadSettings(env).codecOperatorToken}; docs/running.md, "Reading workflow payloads")
  Temporal gRPC       ${services.temporalAddress}   (${process.env.TEMPORAL_ADDRESS ? 'the server TEMPORAL_ADDRESS names' : temporalEngine() === 'cluster' ? 'the Temporal server on PostgreSQL: SHOPFLOW_TEMPORAL=cluster' : 'the dev server on SQLite; SHOPFLOW_TEMPORAL=cluster for the server on PostgreSQL'})
  Webhook receiver    https://localhost:${ports['webhook receiver']}/<inbox>   (GET /_inbox/<inbox> lists what arrived)
  Carrier A (GHN)     ${carrierUrls.carrier_a}   (controls under /_control; the demo shop is connected)
  Carrier B (GHTK)    ${carrierUrls.carrier_b}   (controls under /_control; the demo shop is connected)
  Chat platform       ${env.CHAT_PLATFORM_URL}   (controls under /_control; docs/tour.md, "Chat")
  PostgreSQL          ${services.adminUrl.replace(/\/\/[^@]*@/, '//')}

  Demo shop           ${DEMO_SHOP_SLUG} (owner ${DEMO_OWNER.email} / ${DEMO_OWNER.password})
  Demo API key        ${demo.key}

  Try it:  curl -H "Authorization: Bearer ${demo.key}" ${apiUrl}/api/open/v1/shop

Ctrl-C stops everything this command started.
`);
