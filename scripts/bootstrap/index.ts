import { ensurePostgres, stopLocalPostgres, withDatabase } from './postgres.js';
import { ensureTemporal, stopLocalDevServer, type TemporalService } from './temporal.js';
import { stopTemporalCluster, temporalEngine, type TemporalEngine } from './temporal-cluster.js';
import { joinRun } from './shared-services.js';
import { migrate, setAppRolePassword } from './migrate.js';
import { ensureDevCertificate, type DevCertificate } from './certificates.js';
import { APP_ROLE, appRoleUrl, loadSettings } from '../../config/settings.js';
import { createSql } from '../../db/client.js';
import { isGeographyLoaded, loadGeography } from '../../domain/geography/index.js';
import { sealPlainSigningSecrets, signingSecretsAwaitSealing } from '../../domain/flows/index.js';
import { step } from './progress.js';
import { localPassword } from './credentials.js';
import { dataDir } from './paths.js';
import { join } from 'node:path';

export interface Database {
  /** Owner connection of the application database (migrations, test databases). */
  adminUrl: string;
  /** The application role's connection: what the API, the worker and the CLI use. */
  appUrl: string;
  /** Leaves the services; the last run out stops those a run started (shared-services.ts). */
  stop: () => Promise<void>;
}

export interface Services extends Database {
  temporalAddress: string;
  temporalUiUrl: string;
  certificate: DevCertificate;
  /** Environment for every process started on top of these services. */
  env: Record<string, string>;
}

/** PostgreSQL up and `database` migrated; `stop` leaves it (stopped when no other run uses it and a run started it). */
export async function bootstrapDatabase(database: string): Promise<Database> {
  const run = joinRun();
  const pg = await ensurePostgres();
  if (pg.started) run.markStarted('postgres');
  const stop = async () => {
    await run.leave({ postgres: STOPS.postgres });
  };
  try {
    return { ...(await prepareDatabase(pg.adminUrl, database)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The local Temporal server `engine` names (SHOPFLOW_TEMPORAL; or `TEMPORAL_ADDRESS`) alone, for the
 * bench and the suite's second pass on the cluster; `stop` leaves it as `bootstrap`'s does (and
 * PostgreSQL when this call started it, for the cluster to run on).
 */
export async function bootstrapTemporal(engine = temporalEngine()): Promise<TemporalService & { stop: () => Promise<void> }> {
  const run = joinRun();
  const service = temporalService(engine);
  // Only what this call may have started: the process may hold the database's lease still (the bench).
  const stops: Partial<typeof STOPS> = { [service]: STOPS[service] };
  const stop = async () => {
    await run.leave(stops);
  };
  try {
    const postgres = engine === 'cluster' ? await ensurePostgres() : undefined;
    if (postgres?.started) {
      run.markStarted('postgres');
      stops.postgres = STOPS.postgres;
    }
    const temporal = await ensureTemporal(engine, postgres?.adminUrl);
    if (temporal.started) run.markStarted(service);
    return { ...temporal, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The service a Temporal engine is leased and stopped as. */
const temporalService = (engine: TemporalEngine) => (engine === 'cluster' ? 'temporal-cluster' : 'temporal');

/**
 * What the last run out stops of what runs marked as started. The cluster first when PostgreSQL
 * stops: it runs on it, and nothing else uses it then.
 */
const STOPS = {
  postgres: async () => {
    await stopTemporalCluster();
    await stopLocalPostgres();
  },
  temporal: stopLocalDevServer,
  'temporal-cluster': stopTemporalCluster,
};

/**
 * Everything both README commands need before they start processes: PostgreSQL, the Temporal server
 * (the dev server, or the cluster with SHOPFLOW_TEMPORAL=cluster), the migrated database `database`,
 * and the local receiver's certificate. Idempotent: what is already in place is reused, and then this
 * is quick and prints nothing.
 */
export async function bootstrap(database: string, engine: TemporalEngine = temporalEngine()): Promise<Services> {
  const run = joinRun();
  const postgresUp = ensurePostgres();
  // The cluster runs on PostgreSQL: it waits for it (either failing, the other still settles).
  const temporalUp = engine === 'cluster' ? postgresUp.then(({ adminUrl }) => ensureTemporal(engine, adminUrl)) : ensureTemporal(engine);
  // Every one settled first: when one fails, a service another has started is still marked, so `stop` stops it.
  const [pg, temporal, certificate] = await Promise.allSettled([postgresUp, temporalUp, ensureDevCertificate()]);
  if (pg.status === 'fulfilled' && pg.value.started) run.markStarted('postgres');
  if (temporal.status === 'fulfilled' && temporal.value.started) run.markStarted(temporalService(engine));
  const stop = async () => {
    await run.leave(STOPS);
  };
  try {
    const [server, { address, uiUrl, cli }, devCertificate] = [settled(pg), settled(temporal), settled(certificate)];
    const { adminUrl, appUrl } = await prepareDatabase(server.adminUrl, database);
    return {
      adminUrl,
      appUrl,
      temporalAddress: address,
      temporalUiUrl: uiUrl,
      certificate: devCertificate,
      env: {
        DATABASE_URL: adminUrl,
        APP_DATABASE_URL: appUrl,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_UI_URL: uiUrl,
        OUTBOUND_ALLOW_LOOPBACK: 'true',
        WEBHOOK_EXTRA_CA_FILE: devCertificate.certFile,
        ...(cli ? { TEMPORAL_CLI: cli } : {}),
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

function settled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === 'rejected') throw result.reason;
  return result.value;
}

async function prepareDatabase(serverAdminUrl: string, database: string): Promise<{ adminUrl: string; appUrl: string }> {
  const applied = await migrate(serverAdminUrl, database);
  if (applied > 0) process.stderr.write(`✓ applied ${applied} migration(s) to ${database}\n`);
  // The clone's own password unless one is given: no fixed word a second local user could try.
  const password = process.env.APP_DB_PASSWORD ?? localPassword(join(dataDir, 'credentials', `${APP_ROLE}.password`));
  await setAppRolePassword(serverAdminUrl, password);
  const adminUrl = withDatabase(serverAdminUrl, database);
  // Reference data (Vietnamese geography), written as the owner: the application role only reads it.
  const owner = createSql(adminUrl, { max: 1, applicationName: 'shopflow-bootstrap' });
  try {
    if (!(await isGeographyLoaded(owner)))
      await step(`loading Vietnamese administrative units into ${database}`, () => loadGeography(owner));
    // Secrets stored before they were sealed at rest: the key is in the settings, not in a migration.
    if (await signingSecretsAwaitSealing(owner)) {
      const sealed = await sealPlainSigningSecrets(owner, () => loadSettings().secretsKey);
      if (sealed > 0) process.stderr.write(`✓ sealed ${sealed} plain signing secret(s) in ${database}\n`);
    }
  } finally {
    await owner.end();
  }
  return { adminUrl, appUrl: appRoleUrl(adminUrl, APP_ROLE, password) };
}
