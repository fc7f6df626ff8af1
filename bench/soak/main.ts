import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { loadSettings } from '../../config/settings.js';
import { createSql } from '../../db/client.js';
import { createShop } from '../../domain/access/index.js';
import { createFlow } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { bootstrap } from '../../scripts/bootstrap/index.js';
import { readCertificate } from '../../scripts/bootstrap/certificates.js';
import { say, step } from '../../scripts/bootstrap/progress.js';
import { WebhookReceiver } from '../../simulators/webhook-receiver.js';
import { removeHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import { freshBenchKeys } from '../bench-keys.js';
import { atSteadyRate } from '../load.js';
import { customerCalls } from './customer-calls.js';
import { Receipts } from './receipts.js';
import { duplicatesByKill, printReport, soakFile, writeReport, type KillRecord, type SoakReport } from './report.js';
import { SoakStack, type Component } from './stack.js';
import { whereUndelivered } from './undelivered.js';
import { temporalClient } from '../../config/temporal-connection.js';
import { temporalEngine } from '../../scripts/bootstrap/temporal-cluster.js';

/**
 * `npm run soak`: SOAK_EVENTS (default 10,000) customer creations through two API instances at
 * SOAK_RATE a second, delivered by two relays and two workers to a local HTTPS receiver, while one
 * worker, one relay, one API instance and the Temporal server (the dev server, or the cluster with
 * SHOPFLOW_TEMPORAL=cluster) are each SIGKILLed in turn, kept down SOAK_DOWN_SECONDS and started
 * again. Then every committed event must arrive within SOAK_DRAIN_SECONDS; the exit code is 1 when
 * one did not. docs/decisions/0190 to 0193, "Crash soak".
 */
const EVENTS = Number(process.env.SOAK_EVENTS ?? 10_000);
const RATE = Number(process.env.SOAK_RATE ?? 15);
const DOWN_SECONDS = Number(process.env.SOAK_DOWN_SECONDS ?? 5);
const DRAIN_SECONDS = Number(process.env.SOAK_DRAIN_SECONDS ?? 1200);
/** In this order, spaced over the run: at 20, 40, 60 and 80 % of the calls. */
const KILLS: Component[] = ['worker-a', 'relay-a', 'api-b', 'temporal'];
const PROGRESS_EVERY_MS = 5_000;

if (process.env.TEMPORAL_ADDRESS) {
  say('✗ the soak kills the local Temporal server: unset TEMPORAL_ADDRESS');
  process.exit(2);
}
process.env.NODE_ENV = 'development';
const startedAt = new Date();
const services = await bootstrap('shopflow_soak');
// An interrupted soak leaves its backlog in the outbox, which the relay would serve first (oldest first)
// on this run's task queue: this run starts from an empty one. The database holds only soak shops.
const owner = createSql(services.adminUrl, { max: 1, applicationName: 'shopflow-soak-owner' });
await owner`delete from event_queue`;
await owner.end();
const sql = createSql(services.appUrl, { max: 4, applicationName: 'shopflow-soak' });
const receiver = await WebhookReceiver.start(readCertificate(services.certificate));
const runId = Date.now().toString(36);
const env = {
  ...services.env,
  NODE_ENV: 'development',
  LOG_LEVEL: 'warn',
  // Its own task queue: deliveries of earlier soaks still retrying stay out of this run's figures.
  TEMPORAL_TASK_QUEUE: `soak-${runId}`,
};
const shop = await createShop(sql, { slug: `soak-${runId}`, name: 'Soak shop' });
const apiKeys = await freshBenchKeys(sql, shop.id);
const inbox = `soak-${runId}`;
const { flowId } = await withShop(sql, shop.id, (tx) =>
  createFlow(
    tx,
    shop.id,
    { name: 'Soak flow', eventType: 'customer.created', url: receiver.url(inbox), state: 'on' },
    null,
    loadSettings({ ...process.env, ...env }).secretsKey,
  ),
);
const committedIds = async () =>
  (await withShop(sql, shop.id, (tx) => tx<{ id: string }[]>`select id from events where type = 'customer.created'`)).map(({ id }) => id);

const logFile = soakFile(startedAt, 'log');
const stack = await step(`starting two API instances, two workers and two relays (their output in ${logFile})`, () =>
  SoakStack.start(env, services.temporalAddress, Date.now(), logFile),
);
// Ctrl-C: the processes and services this run started are stopped, not left running.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void stopEverything().then(() => process.exit(130)));
}
const receipts = new Receipts(receiver, inbox);
const { counts, call } = customerCalls(Object.values(stack.apiUrls), apiKeys, runId);
const loadStarted = Date.now();
let issued = 0;
let phase = 'load';
const kills: (Omit<KillRecord, 'caughtUpAfterMs'> & { before: string[] })[] = [];

const progress = setInterval(() => {
  void (async () => {
    const committed = (await committedIds().catch(() => [])).length;
    receipts.scan();
    say(
      `soak ${((Date.now() - loadStarted) / 1000).toFixed(0).padStart(4)} s  ${phase.padEnd(16)} calls ${issued}/${EVENTS}  created ${counts.created}  ` +
        `committed ${committed}  delivered ${receipts.delivered}  duplicates ${receipts.duplicates}  failed over ${counts.failedOver}`,
    );
  })();
}, PROGRESS_EVERY_MS);

const faults = (async () => {
  for (const [index, component] of KILLS.entries()) {
    while (issued < (EVENTS * (index + 1)) / (KILLS.length + 1)) await sleep(100);
    const before = await committedIds();
    const record: (typeof kills)[number] = {
      component,
      atMs: Date.now() - loadStarted,
      afterCalls: issued,
      backlog: receipts.scan().missing(before).length,
      readyAfterMs: null,
      before,
    };
    kills.push(record);
    phase = `${component} down`;
    say(`✗ SIGKILL ${component} (${before.length} events committed before it)`);
    await stack.kill(component, DOWN_SECONDS * 1000);
    phase = `${component} restart`;
    await stack.start(component).then(
      () => {
        record.readyAfterMs = Date.now() - loadStarted - record.atMs;
        say(`✓ ${component} ready again ${(record.readyAfterMs / 1000).toFixed(1)} s after its SIGKILL`);
      },
      (error: Error) => say(`✗ ${component} did not come back: ${error.message}`),
    );
    phase = 'load';
  }
})();

await atSteadyRate(RATE, EVENTS / RATE, (index) => {
  issued = index + 1;
  return call(index);
});
await faults;
phase = 'drain';
const committed = await committedIds();
const drainDeadline = Date.now() + DRAIN_SECONDS * 1000;
while (receipts.scan().missing(committed).length > 0 && Date.now() < drainDeadline) await sleep(250);
// Late duplicates of retries still in flight: a few seconds more before counting.
await sleep(3_000);
clearInterval(progress);
receipts.scan();

const lostIds = receipts.missing(committed);
/** When the last of `eventIds` first arrived (epoch ms). */
const lastReceiptOf = (eventIds: string[]) => Math.max(...eventIds.map((id) => receipts.firstReceipt.get(id) ?? 0));
const lastReceipt = lastReceiptOf(committed);
const report: SoakReport = {
  startedAt: startedAt.toISOString(),
  settings: { events: EVENTS, ratePerSecond: RATE, downSeconds: DOWN_SECONDS, drainSeconds: DRAIN_SECONDS, temporal: temporalEngine() },
  calls: {
    created: counts.created,
    replayed: counts.replayed,
    failedOver: counts.failedOver,
    retried: counts.retried,
    notCreated: counts.notCreated,
  },
  committed: committed.length,
  delivered: receipts.delivered,
  lost: lostIds.length,
  lostIds: lostIds.slice(0, 20),
  undelivered: await whereUndelivered(sql, { shopId: shop.id, flowId }, services.temporalAddress, lostIds),
  duplicates: receipts.duplicates,
  duplicatesByKill: duplicatesByKill(receipts.duplicateReceipts, kills, loadStarted),
  mismatchedWebhookIds: receipts.mismatchedIds,
  drainMs: lostIds.length === 0 ? Math.max(0, lastReceipt - counts.lastCreatedAt) : null,
  totalMs: lostIds.length === 0 ? lastReceipt - loadStarted : null,
  kills: kills.map(({ before, ...kill }) => ({
    ...kill,
    caughtUpAfterMs: receipts.missing(before).length === 0 ? Math.max(0, lastReceiptOf(before) - loadStarted - kill.atMs) : null,
  })),
  unexpectedExits: stack.unexpectedExits,
};
printReport(report);
say(`report: ${writeReport(report)}`);

async function stopEverything(): Promise<void> {
  await stack.stop();
  await removeRunSchedule();
  await receiver.close();
  await sql.end();
  await services.stop();
}
/** The worker registered one for this run's own queue; it would outlive the run in the Temporal UI. */
async function removeRunSchedule(): Promise<void> {
  const connection = await Connection.connect({ address: services.temporalAddress });
  await removeHousekeepingSchedule(temporalClient(connection, loadSettings().payloadCodecKeys), env.TEMPORAL_TASK_QUEUE).catch(
    (error: Error) => say(`housekeeping schedule not removed: ${error.message}`),
  );
  await connection.close();
}
await stopEverything();
process.exit(lostIds.length > 0 ? 1 : 0);
