import { stopLocalPostgres } from './bootstrap/postgres.js';
import { stopLocalTemporal } from './bootstrap/temporal.js';
import { say } from './bootstrap/progress.js';

/** `npm run stop`: stops the local PostgreSQL cluster and Temporal dev server if something left them running. */
const [postgresStopped, temporalStopped] = await Promise.all([stopLocalPostgres(), stopLocalTemporal()]);
say(postgresStopped ? '✓ stopped PostgreSQL' : '· PostgreSQL was not running');
say(temporalStopped ? '✓ stopped the Temporal dev server' : '· the Temporal dev server was not running');
