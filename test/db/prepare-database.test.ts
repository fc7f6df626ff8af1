import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { prepareDatabase } from '../../scripts/bootstrap/database.js';
import { withDatabase } from '../../scripts/bootstrap/postgres.js';
import { testEnv } from '../support/environment.js';

/**
 * Two runs preparing one database at once (two `npm run dev` started together, a deployment's
 * replicas each running the one-shot migration): both come up, each migration applied once.
 */
const serverAdminUrl = withDatabase(testEnv('DATABASE_URL'), 'postgres');
const database = `shopflow_prepare_${randomUUID().replaceAll('-', '')}`;

afterAll(async () => {
  const server = postgres(serverAdminUrl, { max: 1, onnotice: () => {} });
  await server.unsafe(`drop database if exists ${database} with (force)`);
  await server.end();
});

describe('preparing a database', () => {
  it('lets two runs prepare a new database at once: both succeed, every migration applied once', { timeout: 120_000 }, async () => {
    const [first, second] = await Promise.all([prepareDatabase(serverAdminUrl, database), prepareDatabase(serverAdminUrl, database)]);
    expect(second).toEqual(first);
    const owner = postgres(first.adminUrl, { max: 1, onnotice: () => {} });
    try {
      const versions = await owner<{ version: string; times: number }[]>`
        select version, count(*)::int as times from schema_migrations group by version`;
      expect(versions.length).toBeGreaterThan(10);
      expect(versions.filter(({ times }) => times !== 1)).toEqual([]);
      const [{ units }] = await owner<[{ units: number }]>`select count(*)::int as units from geo_units`;
      expect(units).toBeGreaterThan(0);
    } finally {
      await owner.end();
    }
  });
});
