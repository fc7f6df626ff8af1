import { join } from 'node:path';
import postgres from 'postgres';
import { projectRoot } from './paths.js';
import { runCommand } from './run-command.js';
import { withDatabase } from './postgres.js';
import { APP_ROLE } from '../../config/settings.js';

/**
 * Creates `database` when missing and applies the pending migrations of `db/migrations` with dbmate.
 * Returns the number of migrations applied.
 */
export async function migrate(adminUrl: string, database: string): Promise<number> {
  const url = withDatabase(adminUrl, database);
  const dbmate = join(projectRoot, 'node_modules', '.bin', 'dbmate');
  const common = ['--url', postgresUrlForDbmate(url), '--migrations-dir', join(projectRoot, 'db', 'migrations'), '--no-dump-schema'];
  await runCommand(dbmate, [...common, 'create']).catch((error: Error) => {
    if (!/already exists/.test(error.message)) throw error;
  });
  const output = await runCommand(dbmate, [...common, 'up']);
  return (output.match(/^Applied:/gm) ?? []).length;
}

/** The application role logs in with a password so that external servers work the same as the local cluster. */
export async function setAppRolePassword(adminUrl: string, password: string): Promise<void> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`alter role ${APP_ROLE} with login password '${password.replaceAll("'", "''")}'`);
  } finally {
    await sql.end();
  }
}

/** dbmate wants `sslmode` spelled out for local servers without TLS. */
function postgresUrlForDbmate(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has('sslmode')) parsed.searchParams.set('sslmode', 'disable');
  return parsed.toString();
}
