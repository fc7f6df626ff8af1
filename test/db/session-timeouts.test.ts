import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../../config/settings.js';
import { createAppSql, type Sql } from '../../db/client.js';
import { useSuite } from '../support/suite.js';

const { db } = useSuite();
/** Built the way the API, the worker and the relay build theirs, with short limits. */
let sql: Sql;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  sql = createAppSql(
    loadSettings({
      NODE_ENV: 'test',
      APP_DATABASE_URL: db.appUrl,
      DB_STATEMENT_TIMEOUT_MS: '300',
      DB_IDLE_IN_TRANSACTION_TIMEOUT_MS: '500',
    }),
    'shopflow-test-timeouts',
  );
});
afterAll(async () => {
  await sql?.end({ timeout: 1 });
});

describe('session limits of the application pool', () => {
  it('are 15 s per statement and 30 s idle in a transaction by default', async () => {
    const defaults = createAppSql(loadSettings({ NODE_ENV: 'test', APP_DATABASE_URL: db.appUrl }), 'shopflow-test-defaults');
    try {
      const [limits] = await defaults<{ statement: string; idle: string }[]>`
        select current_setting('statement_timeout') as statement, current_setting('idle_in_transaction_session_timeout') as idle`;
      expect(limits).toEqual({ statement: '15s', idle: '30s' });
    } finally {
      await defaults.end({ timeout: 1 });
    }
  });

  it('cancel a statement that runs longer than DB_STATEMENT_TIMEOUT_MS with SQLSTATE 57014, and the pool goes on', async () => {
    await expect(sql`select pg_sleep(3)`).rejects.toMatchObject({ code: '57014' });
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  });

  it('end a session left idle in a transaction longer than DB_IDLE_IN_TRANSACTION_TIMEOUT_MS', async () => {
    let pid = 0;
    // The server ends the session while the transaction waits here; its commit can then only fail.
    const transaction = sql.begin(async (tx) => {
      [{ pid } = { pid: 0 }] = await tx<{ pid: number }[]>`select pg_backend_pid() as pid`;
      await sleep(1_500);
    });
    await expect(transaction).rejects.toThrow();
    expect(pid).toBeGreaterThan(0);
    expect(await db.admin`select 1 from pg_stat_activity where pid = ${pid}`).toEqual([]);
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  });

  it('fail the statements of a transaction whose connection the server closed while its code ran, and the process goes on', async () => {
    // Busy past the idle limit without yielding (as costly work inside a transaction is): the server
    // closes the session meanwhile, and the statements sent next find the socket gone. postgres.js
    // 3.4.9 threw that out of a setImmediate and ended the process (patches/postgres+3.4.9.patch).
    const settled: string[] = [];
    const transaction = sql.begin(async (tx) => {
      await tx`select 1`;
      const busyUntil = Date.now() + 1_200;
      while (Date.now() < busyUntil);
      for (const n of [1, 2]) await tx`select ${n}::int`.catch((error: { code?: string }) => void settled.push(error.code ?? 'error'));
    });
    await expect(transaction).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    await sleep(100);
    // The connection gone, as postgres.js says it or as the socket does (a write after the close: EPIPE on Node 24).
    expect(settled[0]).toMatch(/^(CONNECTION_CLOSED|EPIPE|ECONNRESET)$/);
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  });
});
