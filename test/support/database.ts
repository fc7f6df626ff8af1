import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { APP_ROLE, appRoleUrl } from '../../config/settings.js';
import { createSql, type Sql } from '../../db/client.js';
import { waitFor } from '../../scripts/bootstrap/ports.js';
import { testEnv } from './environment.js';

export interface TestDatabase {
  name: string;
  /** As the database owner: for arranging data and looking behind the API. */
  admin: Sql;
  /** As the application role, as the API and the worker connect (without their session limits: see createAppSql). */
  app: Sql;
  appUrl: string;
  drop: () => Promise<void>;
}

/** SQLSTATE object_in_use: PostgreSQL copies a template only while no one else is connected to it. */
const OBJECT_IN_USE = '55006';

/**
 * `create database … template …`, again while another session holds the template for a moment (the
 * schema test dumps it; another file's copy is being made): up to 10 s. Its files copied whole, not
 * page by page through the write-ahead log (PostgreSQL 15's default): 38-53 ms of PostgreSQL's CPU a
 * copy of this template against 79-240, and every test file makes one.
 */
function copyTemplate(maintenance: postgres.Sql, name: string, template: string): Promise<void> {
  // In memory when the suite made a tablespace there (scripts/bootstrap/memory-scratch.ts).
  const tablespace = process.env.SHOPFLOW_TEST_TABLESPACE ? ` tablespace ${process.env.SHOPFLOW_TEST_TABLESPACE}` : '';
  return waitFor(
    `a copy of ${template}`,
    () =>
      maintenance.unsafe(`create database ${name} template ${template} strategy file_copy${tablespace}`).then(
        () => true,
        (error: { code?: string }) => {
          if (error.code === OBJECT_IN_USE) return false;
          throw error;
        },
      ),
    10_000,
  );
}

/** A fresh database copied from the migrated template that `npm test` prepared. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const templateUrl = new URL(testEnv('DATABASE_URL'));
  const template = templateUrl.pathname.slice(1);
  const name = `test_${randomBytes(6).toString('hex')}`;
  const maintenanceUrl = new URL(templateUrl);
  maintenanceUrl.pathname = '/postgres';
  const maintenance = postgres(maintenanceUrl.toString(), { max: 1, onnotice: () => {} });
  await copyTemplate(maintenance, name, template);
  const url = new URL(templateUrl);
  url.pathname = `/${name}`;
  // The application role's password as the bootstrap set it (the clone's own).
  const appUrl = appRoleUrl(url.toString(), APP_ROLE, decodeURIComponent(new URL(testEnv('APP_DATABASE_URL')).password));
  const admin = createSql(url.toString(), { max: 2, applicationName: 'shopflow-test-admin' });
  const app = createSql(appUrl, { max: 10, applicationName: 'shopflow-test-app' });
  return {
    name,
    admin,
    app,
    appUrl,
    drop: async () => {
      await Promise.all([admin.end({ timeout: 1 }), app.end({ timeout: 1 })]);
      await maintenance.unsafe(`drop database if exists ${name} with (force)`);
      await maintenance.end();
    },
  };
}
