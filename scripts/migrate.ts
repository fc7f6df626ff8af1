import { bootstrapDatabase } from './bootstrap/database.js';
import { stopLocalPostgres } from './bootstrap/postgres.js';
import { DEVELOPMENT_APP_DB_PASSWORD } from '../config/settings.js';

/**
 * `npm run migrate`: the one-shot set-up of a database that `npm run dev` does not manage (the
 * `migrate` service of docker-compose.yml): with the owner connection `DATABASE_URL`, it creates the
 * database when missing, applies the migrations, gives the application role `APP_DB_PASSWORD`, and
 * loads the geography reference data. The API, worker and relay then need only `APP_DATABASE_URL`.
 */
const ownerUrl = process.env.DATABASE_URL;
if (!ownerUrl) throw new Error('DATABASE_URL (the owner connection) is required');
const developing = process.env.NODE_ENV === 'development' || process.env.NODE_ENV === 'test';
const password = process.env.APP_DB_PASSWORD;
if (!developing && (!password || password === DEVELOPMENT_APP_DB_PASSWORD)) {
  throw new Error('APP_DB_PASSWORD must be set to a password of your own (NODE_ENV is production unless set to development or test)');
}
const database = decodeURIComponent(new URL(ownerUrl).pathname.slice(1)) || 'shopflow';
const { stop } = await bootstrapDatabase(database, stopLocalPostgres);
await stop();
process.stderr.write(`✓ ${database} is migrated, with the application role's password and the reference data\n`);
