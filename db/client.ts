import postgres from 'postgres';
import type { Settings } from '../config/settings.js';

export type Sql = postgres.Sql;

/** Session limits in milliseconds (PostgreSQL `statement_timeout`, `idle_in_transaction_session_timeout`). */
export interface SessionTimeouts {
  statementMs: number;
  idleInTransactionMs: number;
}

/**
 * A postgres.js pool: camelCase column names, numeric kept as strings (decimal.js reads them), no notices
 * on stdout. Without `timeouts` the server's defaults apply (none): migrations, the bootstrap and
 * benchmark fixtures run long statements on purpose.
 */
export function createSql(
  url: string,
  options: { max?: number; applicationName: string; timeouts?: SessionTimeouts; onStatement?: () => void },
): Sql {
  return postgres(url, {
    max: options.max ?? 10,
    // Tests count the statements a request costs.
    ...(options.onStatement ? { debug: options.onStatement } : {}),
    // Column names only: `postgres.camel` also renames the keys inside json values, and those hold
    // names people chose (a variant attribute `size_eu` came back `sizeEu`, in answers and webhooks).
    transform: { column: { from: postgres.toCamel, to: postgres.fromCamel } },
    // A timestamptz parameter given as text goes as that text. postgres.js's own sends it through a
    // Date, to the millisecond: a time read back as text (a page's cursor) lost its microseconds, and
    // the next page began at its own last row again.
    types: {
      timestamptz: {
        to: 1184,
        from: [1184],
        serialize: (value: string | Date | number) => (typeof value === 'string' ? value : new Date(value).toISOString()),
        parse: (value: string) => new Date(value),
      },
    },
    onnotice: () => {},
    connection: {
      application_name: options.applicationName,
      ...(options.timeouts
        ? { statement_timeout: options.timeouts.statementMs, idle_in_transaction_session_timeout: options.timeouts.idleInTransactionMs }
        : {}),
    },
  });
}

/** The pool of the API, the worker and the relay: the application role, with the session limits of the settings, so no shop can hold a connection for long. */
export function createAppSql(
  settings: Pick<Settings, 'appDatabaseUrl' | 'DB_POOL_MAX' | 'databaseTimeouts'>,
  applicationName: string,
): Sql {
  if (!settings.appDatabaseUrl) throw new Error('DATABASE_URL or APP_DATABASE_URL must be set');
  return createSql(settings.appDatabaseUrl, { max: settings.DB_POOL_MAX, applicationName, timeouts: settings.databaseTimeouts });
}

/** SQLSTATEs of a session the server ended (shutdown, terminated backend) or a connection gone. */
const CONNECTION_LOST = new Set(['57P01', '57P02', '57P03', '08000', '08003', '08006']);

/**
 * Whether `reason` says a database connection is gone, not that a statement failed: a session the
 * server ended, postgres.js's `CONNECTION_*`, or the socket's own error (a write to a connection the
 * server closed is EPIPE on Node 24).
 */
export function isConnectionLoss(reason: unknown): boolean {
  if (reason instanceof postgres.PostgresError) return CONNECTION_LOST.has(reason.code);
  const { code } = (reason ?? {}) as { code?: unknown };
  return /^(CONNECTION_|EPIPE$|ECONNRESET$|ECONNREFUSED$|ETIMEDOUT$|EHOSTUNREACH$)/.test(String(code));
}

/**
 * Keeps the process up when a database connection the server closed rejects a promise no code holds:
 * postgres.js's own, after its socket died (seen in the relay under load, with backends terminated).
 * The work in hand has failed already and is retried; the pools open new connections. Any other
 * unhandled rejection still ends the process, as Node's default does.
 */
export function outliveClosedConnections(log: (message: string) => void): void {
  process.on('unhandledRejection', (reason) => {
    if (!isConnectionLoss(reason)) throw reason;
    log(`a database connection closed under the process; its work fails and is retried: ${String(reason)}`);
  });
}
