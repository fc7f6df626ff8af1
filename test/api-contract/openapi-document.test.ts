import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROBLEMS, type ProblemCode, withShop } from '../../domain/kernel/index.js';
import { addMember, updateShopSettings } from '../../domain/access/index.js';
import { CURSOR_PATTERN } from '../../api/schemas/list-query.js';
import { bearer, createShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';

interface DeclaredResponse {
  description?: string;
  content?: Record<string, { schema?: { $ref?: string } }>;
  headers?: Record<string, { $ref?: string }>;
}
interface Operation {
  parameters?: { name: string; in: string; schema?: { pattern?: string } }[];
  requestBody?: unknown;
  responses: Record<string, DeclaredResponse>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; headers?: Record<string, { required?: boolean }> };
}

const OPEN_API = '/api/open/v1';
const ADMIN_API = '/api/admin';
const LOGIN = `${ADMIN_API}/session`;

const { db, api } = useSuite({ api: true });
/** The Open API's document, and the admin API's own (`/api/admin/openapi.json`). */
let document: Document;
let adminDocument: Document;

beforeAll(async () => {
  document = (await (await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`)).json()) as Document;
  adminDocument = (await (await fetch(`${api.baseUrl}${ADMIN_API}/openapi.json`)).json()) as Document;
});

/** The document describing `path`. */
const documentOf = (path: string) => (path.startsWith(ADMIN_API) ? adminDocument : document);

/** The operations of both documents. */
function operations(): { method: string; path: string; operation: Operation }[] {
  return [document, adminDocument].flatMap(({ paths }) =>
    Object.entries(paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ method, path, operation }))),
  );
}

/** A JSON request's headers and body. */
function json(body: unknown, headers: Record<string, string> = {}) {
  return { headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

/** Whether a schema of `from` names a record by id anywhere (`format: uuid`), following `$ref`s once each. */
function referencesRecords(from: Document, schema: unknown, seen = new Set<string>()): boolean {
  if (Array.isArray(schema)) return schema.some((item) => referencesRecords(from, item, seen));
  if (schema === null || typeof schema !== 'object') return false;
  const node = schema as Record<string, unknown>;
  if (node.format === 'uuid') return true;
  if (typeof node.$ref === 'string') {
    if (seen.has(node.$ref)) return false;
    seen.add(node.$ref);
    return referencesRecords(from, from.components.schemas[node.$ref.split('/').pop()!], seen);
  }
  return Object.values(node).some((value) => referencesRecords(from, value, seen));
}

/** The statuses an operation must declare (spec, Endpoints: R, L, W; admin: api/plugins/admin-session.ts). */
function requiredStatuses(method: string, path: string, operation: Operation): number[] {
  const write = method !== 'get';
  const takesId = path.includes('{');
  const login = method === 'post' && path === LOGIN;
  const required = [400, 401, 500];
  if (path.startsWith(OPEN_API)) required.push(403, 429);
  else if ((write && !login) || path.startsWith(`${ADMIN_API}/flows`)) required.push(403);
  if (login) required.push(429);
  if (takesId || (write && referencesRecords(documentOf(path), operation.requestBody))) required.push(404);
  if (write) required.push(413, 415);
  if (write && path.startsWith(OPEN_API)) required.push(402);
  return required.sort((a, b) => a - b);
}

describe('the OpenAPI document', () => {
  it('holds the Open API only; the admin API has a document of its own', () => {
    const open = Object.keys(document.paths);
    const admin = Object.keys(adminDocument.paths);
    expect(open.length).toBeGreaterThan(30);
    expect(admin.length).toBeGreaterThan(10);
    expect(open.every((path) => path.startsWith(`${OPEN_API}/`))).toBe(true);
    expect(admin.every((path) => path.startsWith(`${ADMIN_API}/`))).toBe(true);
  });

  it('declares on every operation the statuses of its error sets', () => {
    const lacking = operations().flatMap(({ method, path, operation }) => {
      const missing = requiredStatuses(method, path, operation).filter((status) => !(String(status) in operation.responses));
      return missing.length > 0 ? [`${method.toUpperCase()} ${path} lacks ${missing.join(', ')}`] : [];
    });
    expect(lacking).toEqual([]);
  });

  it('declares every error as application/problem+json with the Problem schema, described by codes of that status', () => {
    const wrong = operations().flatMap(({ method, path, operation }) =>
      Object.entries(operation.responses)
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([status, response]) => {
          const where = `${method.toUpperCase()} ${path} ${status}`;
          const contentTypes = Object.keys(response.content ?? {});
          const schema = response.content?.['application/problem+json']?.schema;
          const codes = (response.description ?? '').split(', ');
          const foreign = codes.filter((code) => PROBLEMS[code as ProblemCode]?.status !== Number(status));
          return [
            ...(contentTypes.join() === 'application/problem+json' ? [] : [`${where}: content ${contentTypes.join() || 'none'}`]),
            ...(schema?.$ref === '#/components/schemas/Problem' ? [] : [`${where}: schema ${JSON.stringify(schema)}`]),
            ...(foreign.length === 0 ? [] : [`${where}: codes ${foreign.join(', ')} are not ${status}`]),
          ];
        }),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps successes application/json (or bodiless)', () => {
    const wrong = operations().flatMap(({ method, path, operation }) => {
      const successes = Object.entries(operation.responses).filter(([status]) => status.startsWith('2'));
      const odd = successes.filter(
        ([, response]) => Object.keys(response.content ?? { 'application/json': {} }).join() !== 'application/json',
      );
      return successes.length === 0 || odd.length > 0 ? [`${method.toUpperCase()} ${path}`] : [];
    });
    expect(wrong).toEqual([]);
  });

  it('declares invalid-cursor on every list with a cursor, whose format it describes', () => {
    const lists = operations().filter(({ operation }) => operation.parameters?.some((parameter) => parameter.name === 'cursor'));
    expect(lists.length).toBeGreaterThanOrEqual(4);
    for (const { path, operation } of lists) {
      expect(operation.responses['400']?.description, path).toContain('invalid-cursor');
      expect(operation.parameters!.find((parameter) => parameter.name === 'cursor')!.schema?.pattern, path).toBe(CURSOR_PATTERN);
    }
  });

  it('declares for a shipment cancel the codes the spec lists beyond W: 404, 409 shipment-not-cancellable, 503', () => {
    const { responses } = document.paths[`${OPEN_API}/shipments/{id}/cancel`]!.post!;
    const codes = (status: number) => responses[String(status)]?.description?.split(', ');
    expect(codes(404)).toEqual(['not-found']);
    expect(codes(409)).toEqual(['shipment-not-cancellable']);
    expect(codes(503)).toEqual(['carrier-unavailable']);
  });
});

describe('statuses the routes answer', () => {
  const keyPermissions = [
    'pos.products.read',
    'pos.products.create',
    'pos.products.delete',
    'pos.orders.read',
    'pos.orders.create',
    'pos.orders.update',
    'pos.customers.read',
    'pos.customers.create',
    'pos.customers.update',
  ];

  interface Case {
    name: string;
    method: string;
    /** The operation's path as the document names it. */
    operation: string;
    url: string;
    body?: string;
    headers?: Record<string, string>;
    status: number;
    code: ProblemCode;
  }

  async function declaredFor(testCase: Case): Promise<void> {
    const response = await fetch(`${api.baseUrl}${testCase.url}`, {
      method: testCase.method,
      headers: testCase.headers,
      body: testCase.body,
    });
    await expectProblem(response, testCase.status, testCase.code);
    const described = documentOf(testCase.operation);
    const declared = described.paths[testCase.operation]?.[testCase.method.toLowerCase()]?.responses[String(testCase.status)];
    expect(declared?.description?.split(', '), `${testCase.name}: ${testCase.status} declared with ${testCase.code}`).toContain(
      testCase.code,
    );
    // Every header the document says this answer carries, it carries.
    for (const [name, header] of Object.entries(declared?.headers ?? {})) {
      const required = described.components.headers?.[header.$ref?.split('/').pop() ?? '']?.required;
      if (required) expect(response.headers.get(name), `${testCase.name}: ${name}`).not.toBeNull();
    }
  }

  it('declares each status a refusal of a real route answers', async () => {
    const shop = await createShopFixture(db.app);
    const expired = await createShopFixture(db.app);
    const key = bearer((await shop.newKey(keyPermissions)).key);
    const expiredKey = bearer((await expired.newKey(keyPermissions)).key);
    await updateShopSettings(db.app, expired.shopId, { plan: 'expired' });
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetch(`${api.baseUrl}${OPEN_API}${path}`, {
        method,
        ...(body === undefined ? { headers: key } : json(body, key)),
      });
      expect(response.status, `${method} ${path}: ${await response.clone().text()}`).toBeLessThan(300);
      return (await response.json()) as Record<string, unknown> & { id: string };
    };

    const code = `P-${randomBytes(4).toString('hex')}`;
    const product = await call('POST', '/products', { code, name: 'Gift wrap', type: 'service', variants: [{ price: '10000' }] });
    await call('POST', '/products', { name: 'Second', type: 'service', variants: [{ price: '1' }] });
    const warehouseId = await withShop(db.app, shop.shopId, (tx) => addWarehouse(tx, shop.shopId, { name: 'Main' }));
    const variantId = (product.variants as { id: string }[])[0]!.id;
    const order = await call('POST', '/orders', { warehouseId, lines: [{ variantId, quantity: '1', unitPrice: '10000' }] });
    const phone = '0901234567';
    await call('POST', '/customers', { name: 'An', contacts: [{ kind: 'phone', value: phone }] });
    const page = await call('GET', '/products?limit=1');
    expect(page.nextCursor).toMatch(new RegExp(CURSOR_PATTERN));
    const forgedCursor = `${Buffer.from('{"k":"2020-01-01","i":"x","s":"y"}').toString('base64url')}.${'A'.repeat(22)}`;
    expect(forgedCursor).toMatch(new RegExp(CURSOR_PATTERN));

    const sameCustomer = json({ name: 'Bình', contacts: [{ kind: 'phone', value: phone }] }, { ...key, 'idempotency-key': randomUUID() });
    const cases: Case[] = [
      {
        name: 'unknown product',
        method: 'GET',
        operation: `${OPEN_API}/products/{id}`,
        url: `${OPEN_API}/products/${randomUUID()}`,
        headers: key,
        status: 404,
        code: 'not-found',
      },
      {
        name: 'forged cursor',
        method: 'GET',
        operation: `${OPEN_API}/orders`,
        url: `${OPEN_API}/orders?cursor=${forgedCursor}`,
        headers: key,
        status: 400,
        code: 'invalid-cursor',
      },
      {
        name: 'taken product code',
        method: 'POST',
        operation: `${OPEN_API}/products`,
        url: `${OPEN_API}/products`,
        ...json({ code, name: 'Again', variants: [{}] }, key),
        status: 409,
        code: 'duplicate-code',
      },
      {
        name: 'status outside the matrix',
        method: 'POST',
        operation: `${OPEN_API}/orders/{id}/status`,
        url: `${OPEN_API}/orders/${order.id}/status`,
        ...json({ status: 'paid' }, key),
        status: 422,
        code: 'order-status-not-allowed',
      },
      // Twice: the second answer is the stored refusal, serialized alike.
      ...[1, 2].map((round) => ({
        name: `taken phone, idempotent ${round}`,
        method: 'POST',
        operation: `${OPEN_API}/customers`,
        url: `${OPEN_API}/customers`,
        ...sameCustomer,
        status: 409,
        code: 'conflict' as const,
      })),
      {
        name: 'unknown customer',
        method: 'PATCH',
        operation: `${OPEN_API}/customers/{id}`,
        url: `${OPEN_API}/customers/${randomUUID()}`,
        ...json({ name: 'X' }, key),
        status: 404,
        code: 'not-found',
      },
      {
        name: 'unknown geo parent',
        method: 'GET',
        operation: `${OPEN_API}/geo/units`,
        url: `${OPEN_API}/geo/units?system=new&parentId=${randomUUID()}`,
        headers: key,
        status: 404,
        code: 'not-found',
      },
      {
        name: 'malformed id',
        method: 'GET',
        operation: `${OPEN_API}/orders/{id}`,
        url: `${OPEN_API}/orders/not-a-uuid`,
        headers: key,
        status: 400,
        code: 'validation-failed',
      },
      {
        name: 'a body that is not JSON, on a route without one',
        method: 'DELETE',
        operation: `${OPEN_API}/products/{id}`,
        url: `${OPEN_API}/products/${product.id}`,
        headers: { ...key, 'content-type': 'text/plain' },
        body: 'x',
        status: 415,
        code: 'unsupported-media-type',
      },
      {
        name: 'expired plan',
        method: 'DELETE',
        operation: `${OPEN_API}/products/{id}`,
        url: `${OPEN_API}/products/${product.id}`,
        headers: expiredKey,
        status: 402,
        code: 'subscription-expired',
      },
      { name: 'no key', method: 'GET', operation: `${OPEN_API}/shop`, url: `${OPEN_API}/shop`, status: 401, code: 'invalid-api-key' },
      // Schema-valid once, 500 then: a year PostgreSQL refuses, a NUL character it cannot store.
      {
        name: 'year 0',
        method: 'GET',
        operation: `${OPEN_API}/products`,
        url: `${OPEN_API}/products?updatedSince=0000-01-01T00:00:00Z`,
        headers: key,
        status: 400,
        code: 'validation-failed',
      },
      {
        name: 'NUL in a name',
        method: 'POST',
        operation: `${OPEN_API}/products`,
        url: `${OPEN_API}/products`,
        ...json({ name: 'a\u0000b', variants: [{}] }, key),
        status: 400,
        code: 'validation-failed',
      },
    ];
    for (const testCase of cases) await declaredFor(testCase);
  });

  it('declares each status a refusal of the admin API answers', async () => {
    const shop = await createShopFixture(db.app);
    const password = `pw-${randomBytes(8).toString('hex')}`;
    await addMember(db.app, shop.shopId, { email: `admin@${shop.slug}.test`, name: 'Admin', password });
    const login = (email: string) => json({ shop: shop.slug, email, password });
    const loggedIn = await fetch(`${api.baseUrl}${LOGIN}`, { method: 'POST', ...login(`admin@${shop.slug}.test`) });
    expect(loggedIn.status).toBe(200);
    const cookie = { cookie: loggedIn.headers.get('set-cookie')!.split(';')[0]! };

    const flow = `${ADMIN_API}/flows/${randomUUID()}`;
    const cases: Case[] = [
      {
        name: 'wrong password',
        method: 'POST',
        operation: LOGIN,
        url: LOGIN,
        ...login(`nobody@${shop.slug}.test`),
        status: 401,
        code: 'invalid-credentials',
      },
      { name: 'no session', method: 'GET', operation: `${ADMIN_API}/flows`, url: `${ADMIN_API}/flows`, status: 401, code: 'not-logged-in' },
      {
        name: 'unknown flow',
        method: 'GET',
        operation: `${ADMIN_API}/flows/{id}`,
        url: flow,
        headers: cookie,
        status: 404,
        code: 'not-found',
      },
      {
        name: 'change without the CSRF token',
        method: 'DELETE',
        operation: `${ADMIN_API}/flows/{id}`,
        url: flow,
        headers: cookie,
        status: 403,
        code: 'csrf-token-invalid',
      },
      {
        name: 'an API key',
        method: 'GET',
        operation: LOGIN,
        url: LOGIN,
        headers: bearer(`svc_live_${'a'.repeat(38)}`),
        status: 401,
        code: 'invalid-api-key',
      },
    ];
    for (const testCase of cases) await declaredFor(testCase);
  });
});
