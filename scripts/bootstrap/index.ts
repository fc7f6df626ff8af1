import { ensurePostgres, withDatabase } from './postgres.js';
import { ensureTemporal } from './temporal.js';
import { migrate, setAppRolePassword, APP_ROLE } from './migrate.js';
import { ensureDevCertificate, type DevCertificate } from './certificates.js';
import { step } from './progress.js';
import { appRoleUrl } from '../../config/settings.js';

export interface Services {
  /** Owner connection of the application database (migrations, seed, test databases). */
  adminUrl: string;
  database: string;
  temporalAddress: string;
  temporalUiUrl: string;
  certificate: DevCertificate;
  /** Environment for every process started on top of these services. */
  env: Record<string, string>;
  /** Stops what this bootstrap started (and nothing that was already running). */
  stop: () => Promise<void>;
}

/**
 * Everything both README commands need before they start processes: PostgreSQL, the Temporal dev
 * server, the migrated database `database`, and the local receiver's certificate. Idempotent: what is
 * already in place is reused, and then this takes well under a few seconds and prints nothing.
 */
export async function bootstrap(database: string): Promise<Services> {
  const [pg, temporal, certificate] = await Promise.all([ensurePostgres(), ensureTemporal(), ensureDevCertificate()]);
  const stop = async () => {
    await Promise.allSettled([pg.stop?.(), temporal.stop?.()]);
  };
  try {
    const pending = await migrate(pg.adminUrl, database);
    if (pending > 0) process.stderr.write(`✓ applied ${pending} migration(s) to ${database}\n`);
    const password = process.env.APP_DB_PASSWORD ?? 'shopflow_app';
    await setAppRolePassword(pg.adminUrl, password);
    const adminUrl = withDatabase(pg.adminUrl, database);
    return {
      adminUrl,
      database,
      temporalAddress: temporal.address,
      temporalUiUrl: temporal.uiUrl,
      certificate,
      env: {
        DATABASE_URL: adminUrl,
        APP_DATABASE_URL: appRoleUrl(adminUrl, APP_ROLE, password),
        TEMPORAL_ADDRESS: temporal.address,
        TEMPORAL_UI_URL: temporal.uiUrl,
        WEBHOOK_ALLOW_LOOPBACK: 'true',
        WEBHOOK_EXTRA_CA_FILE: certificate.certFile,
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

export { step };
