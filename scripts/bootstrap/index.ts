import { ensurePostgres, stopLocalPostgres } from './postgres.js';
import { ensureTemporal, stopLocalDevServer, type TemporalService } from './temporal.js';
import { stopTemporalCluster, temporalEngine, type TemporalEngine } from './temporal-cluster.js';
import { joinRun } from './shared-services.js';
import { ensureDevCertificate, type DevCertificate } from './certificates.js';
import { bootstrapDatabase as databaseOnly, prepareDatabase, type Database } from './database.js';

export type { Database };

export interface Services extends Database {
  temporalAddress: string;
  temporalUiUrl: string;
  certificate: DevCertificate;
  /** Environment for every process started on top of these services. */
  env: Record<string, string>;
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

/** PostgreSQL up and `database` migrated; `stop` leaves it (stopped, the cluster on it first, when no other run uses it and a run started it). */
export function bootstrapDatabase(database: string): Promise<Database> {
  return databaseOnly(database, STOPS.postgres);
}

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
