import { stopLocalPostgres } from './bootstrap/postgres.js';
import { stopLocalTemporal } from './bootstrap/temporal.js';
import { say } from './bootstrap/progress.js';

/**
 * `npm run stop`: stops the local Temporal server (the dev server or the cluster) and PostgreSQL if
 * something left them running; Temporal first, as the cluster keeps its data in that PostgreSQL.
 */
const temporalStopped = await stopLocalTemporal();
const postgresStopped = await stopLocalPostgres();
say(temporalStopped ? '✓ stopped the local Temporal server' : '· no local Temporal server was running');
say(postgresStopped ? '✓ stopped PostgreSQL' : '· PostgreSQL was not running');
