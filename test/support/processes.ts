import { Connection } from '@temporalio/client';
import { outputMatches, type ProcessGroup } from '../../scripts/processes.js';
import { removeHousekeepingSchedule } from '../../workflows/housekeeping/housekeeping-starter.js';
import { testTemporalClient } from './temporal.js';
import { waitFor } from '../../scripts/bootstrap/ports.js';
import { testEnv } from './environment.js';

/** The environment of the real processes on a test database and task queue (as `npm run dev` gives them, with test settings). */
export function processEnv(appDatabaseUrl: string, taskQueue: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    APP_DATABASE_URL: appDatabaseUrl,
    TEMPORAL_ADDRESS: testEnv('TEMPORAL_ADDRESS'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    OUTBOUND_ALLOW_LOOPBACK: 'true',
    WEBHOOK_EXTRA_CA_FILE: testEnv('WEBHOOK_EXTRA_CA_FILE'),
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * The real API (on `env.PORT`), worker and relay in `group` (the sources, or the built output in
 * `built`), each waited for until it serves: the
 * workers polling, the relay listening, the API answering /healthz (its log at info, which says when
 * its shipments' worker polls).
 */
export async function startApiWorkerRelay(group: ProcessGroup, env: Record<string, string>, built?: string): Promise<string> {
  const apiUrl = `http://127.0.0.1:${env.PORT}`;
  // From the sources with tsx, or from `npm run build`'s output in `built`, with node alone.
  const start = (name: string, entry: string, processEnv: Record<string, string>) =>
    built ? group.startBuilt(name, built, entry, processEnv) : group.startTs(name, entry, processEnv);
  const worker = start('worker', 'workers/worker.ts', env);
  const relay = start('relay', 'workers/relay.ts', env);
  const api = start('api', 'api/server.ts', { ...env, LOG_LEVEL: 'info' });
  await Promise.all([
    outputMatches(worker, /worker polling task queue/, 60_000, 'worker'),
    outputMatches(relay, /outbox relay started/, 60_000, 'relay'),
    outputMatches(api, /shipments worker polling task queue/, 60_000, 'api'),
    waitFor('the API', async () => (await fetch(`${apiUrl}/healthz`).catch(() => undefined))?.ok === true, 60_000),
  ]);
  return apiUrl;
}

/** Stops what `startApiWorkerRelay` started, and the housekeeping schedule its worker registered for `taskQueue`. */
export async function stopApiWorkerRelay(group: ProcessGroup, taskQueue: string): Promise<void> {
  await group.stopAll(5_000);
  const connection = await Connection.connect({ address: testEnv('TEMPORAL_ADDRESS') });
  await removeHousekeepingSchedule(testTemporalClient(connection), taskQueue);
  await connection.close();
}
