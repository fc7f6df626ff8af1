import { ensurePostgres, stopLocalPostgres, withDatabase } from './postgres.js';
import { ensureTemporal, stopLocalTemporal, type TemporalService } from './temporal.js';
import { joinRun } from './shared-services.js';
import { migrate, setAppRolePassword } from './migrate.js';
import { ensureDevCertificate, type DevCertificate } from './certificates.js';
import { APP_ROLE, appRoleUrl, DEVELOPMENT_APP_DB_PASSWORD, loadSettings } from '../../config/settings.js';
import { createSql } from '../../db/client.js';
import { isGeographyLoaded, loadGeography } from '../../domain/geography/index.js';
import { sealPlainSigningSecrets, signingSecretsAwaitSealing } from '../../domain/flows/index.js';
import { step } from './progress.js';

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
    await run.leave({ postgres: stopLocalPostgres });
  };
  try {
    return { ...(await prepareDatabase(pg.adminUrl, database)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The Temporal dev server (or `TEMPORAL_ADDRESS`) alone, for the bench; `stop` leaves it as `bootstrap`'s does. */
export async function bootstrapTemporal(): Promise<TemporalService & { stop: () => Promise<void> }> {
  const run = joinRun();
  const temporal = await ensureTemporal();
  if (temporal.started) run.markStarted('temporal');
  const stop = async () => {
    await run.leave({ temporal: stopLocalTemporal });
  };
  return { ...temporal, stop };
}

/**
 * Everything both README commands need before they start processes: PostgreSQL, the Temporal dev
 * server, the migrated database `database`, and the local receiver's certificate. Idempotent: what is
 * already in place is reused, and then this is quick and prints nothing.
 */
export async function bootstrap(database: string): Promise<Services> {
  const run = joinRun();
  // Every one settled first: when one fails, a service another has started is still marked, so `stop` stops it.
  const [pg, temporal, certificate] = await Promise.allSettled([ensurePostgres(), ensureTemporal(), ensureDevCertificate()]);
  if (pg.status === 'fulfilled' && pg.value.started) run.markStarted('postgres');
  if (temporal.status === 'fulfilled' && temporal.value.started) run.markStarted('temporal');
  const stop = async () => {
    await run.leave({ postgres: stopLocalPostgres, temporal: stopLocalTemporal });
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
  const password = process.env.APP_DB_PASSWORD ?? DEVELOPMENT_APP_DB_PASSWORD;
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
