import { ensurePostgres, stopLocalPostgres } from './bootstrap/postgres.js';
import { joinRun } from './bootstrap/shared-services.js';
import { writeSchemaFile } from './bootstrap/migrate.js';

/**
 * `npm run db:schema`: rewrites db/schema.sql, the live schema, from a scratch database that every
 * migration of db/migrations is applied to (on the clone's cluster, or `DATABASE_URL`'s server).
 * `npm run dev` does the same when it applies new migrations; the suite checks the file is current.
 */
const run = joinRun();
try {
  const pg = await ensurePostgres();
  if (pg.started) run.markStarted('postgres');
  const schema = await writeSchemaFile(pg.adminUrl);
  process.stderr.write(`✓ db/schema.sql: ${schema.split('\n').length} lines\n`);
} finally {
  await run.leave({ postgres: stopLocalPostgres });
}
