import { ensurePostgres, withDatabase } from './postgres.js';
import { ensureTemporal } from './temporal.js';
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
  stop: () => Promise<void>;
}

export interface Services extends Database {
  temporalAddress: string;
  temporalUiUrl: string;
  certificate: DevCertificate;
  /** Environment for every process started on top of these services. */
  env: Record<string, string>;
}

/** PostgreSQL up and `database` migrated; `stop` stops PostgreSQL if this call started it. */
export async function bootstrapDatabase(database: string): Promise<Database> {
  const pg = await ensurePostgres();
  const stop = async () => {
    await pg.stop?.();
  };
  try {
    return { ...(await prepareDatabase(pg.adminUrl, database)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Everything both README commands need before they start processes: PostgreSQL, the Temporal dev
 * server, the migrated database `database`, and the local receiver's certificate. Idempotent: what is
 * already in place is reused, and then this is quick and prints nothing.
 */
export async function bootstrap(database: string): Promise<Services> {
  const [pg, temporal, certificate] = await Promise.all([ensurePostgres(), ensureTemporal(), ensureDevCertificate()]);
  const stop = async () => {
    await Promise.allSettled([pg.stop?.(), temporal.stop?.()]);
  };
  try {
    const { adminUrl, appUrl } = await prepareDatabase(pg.adminUrl, database);
    return {
      adminUrl,
      appUrl,
      temporalAddress: temporal.address,
      temporalUiUrl: temporal.uiUrl,
      certificate,
      env: {
        DATABASE_URL: adminUrl,
        APP_DATABASE_URL: appUrl,
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
