import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OPEN_API_DOCUMENT, REFERENCE_PAGE } from '../../api/routes/open-api.js';
import { generateApiKey } from '../../domain/access/api-key-format.js';
import type { ProblemCode } from '../../domain/kernel/index.js';
import { expectProblem } from '../support/problems.js';
import { freshWindow } from '../support/rate-window.js';
import { useSuite } from '../support/suite.js';

/** Every answer under /api/open/v1 authenticates first and counts in one counter (spec, Authentication 1; Rate limits). */
const { api, shop, request } = useSuite({ api: true, shop: true });

/** The rate headers of an answer, as sent: a header set twice would read `600, 60`. */
const rateHeaders = (response: Response) => ({
  limit: response.headers.get('x-ratelimit-limit'),
  remaining: Number(response.headers.get('x-ratelimit-remaining')),
  reset: Number(response.headers.get('x-ratelimit-reset')),
});

describe('a request without a key under /api/open/v1', () => {
  it('is 401 whatever its method, a method the path lacks included (it was 405 before the key was looked at)', async () => {
    const id = randomUUID();
    const wrongMethods: [string, string][] = [
      ['OPTIONS', '/orders'],
      ['DELETE', '/shop'],
      ['PUT', `/orders/${id}/status`],
      ['QUERY', `/products/${id}`],
    ];
    const { key } = await shop.newKey([]);
    for (const [method, path] of wrongMethods) {
      for (const withKey of [undefined, generateApiKey()]) {
        const refused = await request(method, path, { key: withKey });
        await expectProblem(refused, 401, 'invalid-api-key');
        expect(refused.headers.get('allow')).toBeNull();
      }
      const known = await request(method, path, { key });
      await expectProblem(known, 405, 'method-not-allowed');
      expect(known.headers.get('allow')).toBeTruthy();
    }
  });
});

describe('every answer under /api/open/v1', () => {
  it('carries the headers of exactly one counter and counts in that counter only', async () => {
    await freshWindow(20);
    const { key } = await shop.newKey(['pos.customers.read']);
    const expectCounted = async (
      response: Response,
      status: number,
      code: ProblemCode | undefined,
      counter: { limit: string; remaining: number },
    ) => {
      if (code) await expectProblem(response.clone(), status, code);
      expect(response.status, await response.clone().text()).toBe(status);
      const headers = rateHeaders(response);
      expect({ limit: headers.limit, remaining: headers.remaining }).toEqual(counter);
      expect(headers.reset).toBeGreaterThanOrEqual(1);
      expect(headers.reset).toBeLessThanOrEqual(60);
    };

    // The key's general counter: one hit each, whatever the answer.
    const general: [string, string, number, ProblemCode | undefined, unknown?][] = [
      ['GET', '/shop', 200, undefined],
      ['GET', '/customers?limit=0', 400, 'validation-failed'],
      ['GET', '/orders', 403, 'insufficient-permission'],
      ['GET', '/no/such/list', 404, 'not-found'],
      ['OPTIONS', '/customers', 405, 'method-not-allowed'],
      ['DELETE', '/shop', 405, 'method-not-allowed'],
      // Paths the router used to refuse itself, in plain JSON: an undecodable escape, a segment over 100 characters.
      ['GET', '/customers/%E0%A4%A', 400, 'validation-failed'],
      ['GET', `/customers/${'a'.repeat(150)}`, 400, 'validation-failed'],
      ['GET', '/no/such/%E0%A4%A', 404, 'not-found'],
      // The document's old place is a path like any other under the prefix.
      ['GET', '/openapi.json', 404, 'not-found'],
      ['POST', '/customers', 403, 'insufficient-permission', { name: 'x' }],
    ];
    let remaining = 600;
    for (const [method, path, status, code, body] of general) {
      remaining -= 1;
      await expectCounted(await request(method, path, { key, body }), status, code, { limit: '600', remaining });
    }

    // The message counter (60 per key) and the shipment counter (60 per shop): the general one does not move.
    const messages = await request('POST', `/conversations/${randomUUID()}/messages`, { key, body: { text: 'hi' } });
    await expectCounted(messages, 403, 'insufficient-permission', { limit: '60', remaining: 59 });
    const privateReply = await request('POST', `/comments/${randomUUID()}/private-reply`, { key, body: { text: 'hi' } });
    await expectCounted(privateReply, 403, 'insufficient-permission', { limit: '60', remaining: 58 });
    const shipment = await request('POST', '/shipments', { key, body: {} });
    await expectCounted(shipment, 403, 'insufficient-permission', { limit: '60', remaining: 59 });
    remaining -= 1;
    await expectCounted(await request('GET', '/shop', { key }), 200, undefined, { limit: '600', remaining });

    // Without a usable key: the client address's counter, whatever the method or path.
    const unknownKey = generateApiKey();
    const byAddress = [
      await request('GET', '/shop'),
      await request('OPTIONS', '/orders', { key: unknownKey }),
      await request('GET', '/no/such/list', { key: unknownKey }),
      await request('GET', '/openapi.json'),
    ];
    const first = rateHeaders(byAddress[0]!).remaining;
    for (const [index, response] of byAddress.entries()) {
      await expectCounted(response, 401, 'invalid-api-key', { limit: '600', remaining: first - index });
    }
    remaining -= 1;
    await expectCounted(await request('GET', '/shop', { key }), 200, undefined, { limit: '600', remaining });
  });
});

describe('the OpenAPI document', () => {
  it('is served outside /api/open/v1 without a key, and the reference page links to it', async () => {
    const response = await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toBe('3.1.0');
    expect(document.paths['/api/open/v1/shop']).toBeDefined();
    expect(OPEN_API_DOCUMENT.startsWith('/api/open/v1/')).toBe(false);
    // The page's script loads the document next to it (`./json` of `/docs/`).
    const page = await fetch(`${api.baseUrl}${REFERENCE_PAGE}/static/swagger-initializer.js`);
    expect(new URL('./json', `${api.baseUrl}${REFERENCE_PAGE}/`).pathname).toBe(OPEN_API_DOCUMENT);
    expect(await page.text()).toContain("resolveUrl('./json')");
    // Its old place needs a key like every path under the prefix.
    await expectProblem(await request('GET', '/openapi.json'), 401, 'invalid-api-key');
  });
});
