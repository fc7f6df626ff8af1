import { join } from 'node:path';
import postgres from 'postgres';
import { APP_ROLE, appRoleUrl, loadSettings } from '../../config/settings.js';
import { createSql } from '../../db/client.js';
import { encryptPlainSigningSecrets, signingSecretsAwaitEncryption } from '../../domain/flows/index.js';
import { isGeographyLoaded, loadGeography } from '../../domain/geography/index.js';
import { localPassword } from './credentials.js';
import { migrate, setAppRolePassword } from './migrate.js';
import { dataDir } from './paths.js';
import { ensurePostgres, withDatabase } from './postgres.js';
import { step } from './progress.js';
import { joinRun } from './shared-services.js';

// The database alone, apart from Temporal and the development certificate: what `npm run migrate`
// (the image's one-shot migration) needs, with production dependencies only.

export interface Database {
  /** Owner connection of the application database (migrations, test databases). */
  adminUrl: string;
  /** The application role's connection: what the API, the worker and the CLI use. */
  appUrl: string;
  /** Leaves the services; the last run out stops those a run started (shared-services.ts). */
  stop: () => Promise<void>;
}

/**
 * PostgreSQL up and `database` migrated; `stop` leaves it (`stopPostgres` when no other run uses it
 * and this run started it).
 */
export async function bootstrapDatabase(database: string, stopPostgres: () => Promise<unknown>): Promise<Database> {
  const run = joinRun();
  const pg = await ensurePostgres();
  if (pg.started) run.markStarted('postgres');
  const stop = async () => {
    await run.leave({ postgres: stopPostgres });
  };
  try {
    return { ...(await prepareDatabase(pg.adminUrl, database)), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * `database` migrated on the server `serverAdminUrl`, the application role's password set, the reference
 * data loaded. One process at a time per database: dbmate takes no lock, so two runs started together
 * (two `npm run dev`, replicas' one-shot migrations) would apply the same migration twice and one fail.
 */
export async function prepareDatabase(serverAdminUrl: string, database: string): Promise<{ adminUrl: string; appUrl: string }> {
  // A session's advisory lock, on the server's own database: released when the connection ends, however the work ends.
  const server = postgres(serverAdminUrl, { max: 1, onnotice: () => {} });
  try {
    await server`select pg_advisory_lock(hashtext(${`shopflow prepare ${database}`}))`;
    return await prepareLocked(server, serverAdminUrl, database);
  } finally {
    await server.end();
  }
}

/** The work of `prepareDatabase`, with `server` the connection that holds its lock. */
async function prepareLocked(
  server: postgres.Sql,
  serverAdminUrl: string,
  database: string,
): Promise<{ adminUrl: string; appUrl: string }> {
  const applied = await migrate(serverAdminUrl, database);
  if (applied > 0) process.stderr.write(`✓ applied ${applied} migration(s) to ${database}\n`);
  // The clone's own password unless one is given: no fixed word a second local user could try.
  const password = process.env.APP_DB_PASSWORD ?? localPassword(join(dataDir, 'credentials', `${APP_ROLE}.password`));
  await setAppRolePassword(server, password);
  const adminUrl = withDatabase(serverAdminUrl, database);
  // Reference data (Vietnamese geography), written as the owner: the application role only reads it.
  const owner = createSql(adminUrl, { max: 1, applicationName: 'shopflow-bootstrap' });
  try {
    if (!(await isGeographyLoaded(owner)))
      await step(`loading Vietnamese administrative units into ${database}`, () => loadGeography(owner));
    // Secrets stored before they were encrypted at rest: the key is in the settings, not in a migration.
    if (await signingSecretsAwaitEncryption(owner)) {
      const encrypted = await encryptPlainSigningSecrets(owner, () => loadSettings().secretsKey);
      if (encrypted > 0) process.stderr.write(`✓ encrypted ${encrypted} plain signing secret(s) in ${database}\n`);
    }
  } finally {
    await owner.end();
  }
  return { adminUrl, appUrl: appRoleUrl(adminUrl, APP_ROLE, password) };
}
