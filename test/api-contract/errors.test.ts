import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { expectProblem } from '../support/problems.js';
import { bearer } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';

const { api, shop } = useSuite({
  api: {
    routes: (app) => {
      // Routes that exist only in this suite, to drive the shared error handler.
      const routes = app.withTypeProvider<ZodTypeProvider>();
      routes.post(
        '/api/open/v1/echo',
        {
          schema: {
            body: z.object({
              name: z.string().max(255),
              lines: z.array(z.object({ quantity: z.string().regex(/^\d+(\.\d{1,3})?$/) })).min(1),
            }),
          },
        },
        async (request) => request.body,
      );
      routes.get('/api/open/v1/boom', async () => {
        throw new Error('connection string postgres://secret@db/internal exploded');
      });
    },
  },
  shop: true,
});
let auth: Record<string, string>;

beforeAll(async () => {
  auth = bearer((await shop.newKey(['pos.orders.read'])).key);
});

const post = (path: string, body: string | Uint8Array, contentType = 'application/json') =>
  fetch(`${api.baseUrl}${path}`, { method: 'POST', headers: { ...auth, 'content-type': contentType }, body });

describe('problem+json for every failure', () => {
  it('answers an unknown route with 404 not-found', async () => {
    const body = await expectProblem(await fetch(`${api.baseUrl}/api/open/v1/no-such-thing`, { headers: auth }), 404, 'not-found');
    expect(body).not.toHaveProperty('errors');
  });

  it('answers malformed JSON with 400 validation-failed', async () => {
    await expectProblem(await post('/api/open/v1/echo', '{"name": "x",'), 400, 'validation-failed');
  });

  it('answers schema violations with 400 validation-failed and a path per field', async () => {
    const body = await expectProblem(
      await post('/api/open/v1/echo', JSON.stringify({ name: 'x', lines: [{ quantity: '1.2345' }] })),
      400,
      'validation-failed',
    );
    expect(body.errors).toEqual([{ path: 'lines.0.quantity', message: expect.any(String) }]);
  });

  it('answers a non-JSON body with 415 unsupported-media-type', async () => {
    await expectProblem(await post('/api/open/v1/echo', 'name=x', 'application/x-www-form-urlencoded'), 415, 'unsupported-media-type');
    await expectProblem(await post('/api/open/v1/echo', '{"name":"x"}', 'text/plain'), 415, 'unsupported-media-type');
  });

  it('answers a body over 1 MiB with 413 payload-too-large', async () => {
    const big = JSON.stringify({ name: 'x', lines: [{ quantity: '1' }], padding: 'a'.repeat(1024 * 1024) });
    await expectProblem(await post('/api/open/v1/echo', big), 413, 'payload-too-large');
    // Just under the limit is parsed and validated normally.
    const fits = JSON.stringify({ name: 'x', lines: [{ quantity: '1' }], padding: 'a'.repeat(1024 * 1024 - 100) });
    expect((await post('/api/open/v1/echo', fits)).status).toBe(200);
  });

  it('answers an uncaught exception with 500 internal-error and leaks nothing', async () => {
    const response = await fetch(`${api.baseUrl}/api/open/v1/boom`, { headers: auth });
    const body = await expectProblem(response, 500, 'internal-error');
    expect(JSON.stringify(body)).not.toMatch(/postgres|secret|exploded|stack/);
    expect(api.logs.join('')).toMatch(/exploded/);
  });
});

describe('the API surface', () => {
  it('sends no CORS headers, not even to a preflight', async () => {
    const preflight = await fetch(`${api.baseUrl}/api/open/v1/echo`, {
      method: 'OPTIONS',
      headers: { ...auth, origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    // OPTIONS is a method no path has: 405, with Allow and no CORS header.
    expect(preflight.status).toBe(405);
    const plain = await fetch(`${api.baseUrl}/healthz`, { headers: { origin: 'https://evil.example' } });
    for (const response of [preflight, plain]) {
      expect([...response.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('reports liveness and readiness of PostgreSQL and Temporal', async () => {
    expect(await (await fetch(`${api.baseUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${api.baseUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { postgres: 'ok', temporal: 'ok' } });
  });

  it('publishes an OpenAPI document generated from the route schemas, and a reference page', async () => {
    const document = (await (await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(document.paths['/api/open/v1/echo']).toBeDefined();
    const page = await fetch(`${api.baseUrl}/docs/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/swagger/i);
  });

  it('never writes the Authorization header or a key in the URL to the log', async () => {
    const key = 'svc_live_ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef012345';
    await fetch(`${api.baseUrl}/api/open/v1/no-such-thing?api_key=${key}`, { headers: { authorization: `Bearer ${key}` } });
    const logged = api.logs.join('');
    expect(logged).toMatch(/no-such-thing/);
    expect(logged).not.toContain('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef012345');
  });
});
