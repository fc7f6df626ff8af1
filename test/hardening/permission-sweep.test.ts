import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRANTABLE_PERMISSIONS } from '../../domain/access/permissions.js';
import { createShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';

/**
 * For every operation of the served OpenAPI document, with the permissions it declares
 * (`x-permissions`): a key holding every grantable permission but one it needs gets 403
 * `insufficient-permission`, and the database is unchanged. New operations are swept as they appear.
 */
const { db, api, request } = useSuite({ api: true, shop: true });

interface Operation {
  method: string;
  path: string;
  permissions: string[];
}

let operations: Operation[];

/** Every row of every table (but the request counters), as one digest: nothing may change. */
async function databaseDigest(): Promise<string> {
  const tables = await db.admin<{ name: string }[]>`
    select tablename as name from pg_tables where schemaname = 'public' and tablename not in ('rate_limit_counters', 'schema_migrations')`;
  const parts = await Promise.all(
    tables.map(async ({ name }) => {
      const [row] = await db.admin<
        { digest: string | null }[]
      >`select md5(string_agg(t::text, ',' order by t::text)) as digest from ${db.admin(name)} t`;
      return `${name}:${row?.digest ?? ''}`;
    }),
  );
  return parts.join('\n');
}

beforeAll(async () => {
  const response = await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`);
  expect(response.status).toBe(200);
  const document = (await response.json()) as { paths: Record<string, Record<string, { 'x-permissions'?: string[] }>> };
  operations = Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/api/open/v1/'))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => {
        expect(operation['x-permissions'], `${method} ${path} declares x-permissions`).toBeInstanceOf(Array);
        return { method: method.toUpperCase(), path: path.slice('/api/open/v1'.length), permissions: operation['x-permissions']! };
      }),
    );
});

describe('permission sweep over the OpenAPI document', () => {
  it('answers 403 insufficient-permission to a key lacking each needed permission, changing nothing', async () => {
    expect(operations.length).toBeGreaterThan(40);
    const needed = [...new Set(operations.flatMap((operation) => operation.permissions))];
    for (const permission of needed) expect(GRANTABLE_PERMISSIONS as readonly string[]).toContain(permission);
    const before = await databaseDigest();
    let checks = 0;
    for (const permission of needed) {
      // A shop per missing permission: a shop has at most 10 connection applications.
      const fixture = await createShopFixture(db.app);
      const { key } = await fixture.newKey(GRANTABLE_PERMISSIONS.filter((held) => held !== permission));
      const lacking = operations.filter((operation) => operation.permissions.includes(permission));
      for (const operation of lacking) {
        const path = operation.path.replace(/\{[^}]+\}/g, () => randomUUID());
        const body = ['POST', 'PATCH', 'PUT'].includes(operation.method) ? {} : undefined;
        const response = await request(operation.method, path, { key, body });
        const problem = await expectProblem(response, 403, 'insufficient-permission').catch((error: Error) => {
          throw new Error(`${operation.method} ${operation.path} without ${permission}: ${error.message}`);
        });
        expect(problem.detail).toContain(permission);
        checks += 1;
      }
    }
    // The new shops and their keys aside, nothing changed: compare the tables the requests could touch.
    const after = await databaseDigest();
    const changed = (digest: string) =>
      digest.split('\n').filter((line) => !/^(shops|users|shop_members|roles|applications|api_keys|shop_log|pages):/.test(line));
    expect(changed(after)).toEqual(changed(before));
    console.info(`permission sweep: ${operations.length} operations, ${checks} (operation, missing permission) checks`);
    expect(checks).toBeGreaterThanOrEqual(operations.filter((operation) => operation.permissions.length > 0).length);
  });
});
