import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';
import { normalisedPath } from '../../api/plugins/route-area.js';

const { api, shop } = useSuite({
  api: {
    routes: (app) => {
      // Routes that were (wrongly) left without a key or session check and still read who is calling.
      app.get('/api/open/v1/test/forgotten', { config: { public: true } }, async (request) => ({ shop: request.auth.shop.id }));
      app.get('/api/admin/test/forgotten', { config: { public: true } }, async (request) => ({ user: request.admin.userId }));
    },
  },
  shop: true,
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request whose target is sent byte for byte (fetch would resolve dot segments first). */
function raw(target: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  const { hostname, port } = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest({ host: hostname, port, path: target, method: 'GET', headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

const code = (answer: RawAnswer) => (JSON.parse(answer.body) as { code: string }).code;

/** Every way a lenient client or proxy might spell one path: encoded, doubled slashes, dot segments, other case. */
function spellings(prefix: string, rest: string): string[] {
  const [first, ...others] = prefix.split('/').filter(Boolean);
  const encodedFirst = `/%${first!.charCodeAt(0).toString(16)}${first!.slice(1)}/${others.join('/')}`;
  return [
    `${encodedFirst}${rest}`,
    `${prefix}/${rest.slice(1).replace(/^(.)/, (letter) => `%${letter.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    `/${prefix.slice(1).replaceAll('/', '%2F')}${rest}`,
    `/${prefix}${rest}`,
    `${prefix.replace(/\/([^/]+)$/, '//$1')}${rest}`,
    `${prefix}/.${rest}`,
    `${prefix}/x/..${rest}`,
    `${prefix}/%2e%2e/${prefix.split('/').at(-1)}${rest}`,
    `${prefix.toUpperCase()}${rest}`,
    `${prefix.replace(/\b[a-z]/g, (letter) => letter.toUpperCase())}${rest}`,
  ];
}

describe('every spelling of a protected path needs a key or a session', () => {
  it('spells each path as intended: every spelling reads as the same path once normalised', () => {
    for (const target of spellings('/api/open/v1', '/shop')) expect(normalisedPath(target)).toBe('/api/open/v1/shop');
    for (const target of spellings('/api/admin', '/flows')) expect(normalisedPath(target)).toBe('/api/admin/flows');
  });

  it('answers the outsider of the security review with 401, not data', async () => {
    const answer = await raw('/%61pi/open/v1/geo/units?system=new');
    expect(answer.status).toBe(401);
    expect(code(answer)).toBe('invalid-api-key');
    expect(answer.headers['x-ratelimit-limit']).toBe('600');
  });

  it.each([
    ['/api/open/v1', '/shop'],
    ['/api/open/v1', '/geo/units?system=new'],
    ['/api/open/v1', '/products'],
  ])('refuses %s%s without a key in every spelling (401, never 200 or 500)', async (prefix, rest) => {
    for (const target of spellings(prefix, rest)) {
      const answer = await raw(target);
      expect({ target, status: answer.status, code: code(answer) }).toEqual({ target, status: 401, code: 'invalid-api-key' });
    }
  });

  it.each([
    ['/api/admin', '/flows'],
    ['/api/admin', '/session'],
  ])('refuses %s%s without a session in every spelling', async (prefix, rest) => {
    for (const target of spellings(prefix, rest)) {
      const answer = await raw(target);
      expect({ target, status: answer.status, code: code(answer) }).toEqual({ target, status: 401, code: 'not-logged-in' });
    }
  });

  it('serves an encoded spelling the router understands to a valid key, counted like any request', async () => {
    const { key } = await shop.newKey(['pos.orders.read']);
    const first = await raw('/%61pi/open/v1/shop', { authorization: `Bearer ${key}` });
    expect(first.status).toBe(200);
    expect((JSON.parse(first.body) as { id: string }).id).toBe(shop.shopId);
    const second = await raw('/api/open/v1/%73hop', { authorization: `Bearer ${key}` });
    expect(second.status).toBe(200);
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
  });

  it('refuses a key in an encoded URL, or written percent-encoded, and never logs it', async () => {
    const { key } = await shop.newKey(['pos.orders.read']);
    const marker = randomUUID();
    const encodedKey = key.replace('svc_live_', 'svc%5Flive%5f');
    for (const target of [`/%61pi/open/v1/shop?probe=${marker}&k=${key}`, `/api/open/v1/shop?probe=${marker}&k=${encodedKey}`]) {
      const answer = await raw(target, { authorization: `Bearer ${key}` });
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'invalid-api-key', detail: expect.stringMatching(/never in the URL/) });
    }
    const logs = api.logs.join('');
    expect(logs).toContain(marker);
    expect(logs).not.toContain(key.slice(9));
    expect(logs).toContain('svc_live_[redacted]');
  });

  it('answers 401 when a route under a prefix has no identity to give, never 500', async () => {
    const open = await raw('/api/open/v1/test/forgotten');
    expect({ status: open.status, code: code(open) }).toEqual({ status: 401, code: 'invalid-api-key' });
    const admin = await raw('/api/admin/test/forgotten');
    expect({ status: admin.status, code: code(admin) }).toEqual({ status: 401, code: 'not-logged-in' });
  });

  it('still answers an unknown path under the prefix with 404 for a valid key', async () => {
    const { key } = await shop.newKey([]);
    const answer = await raw('/api/open/v1/no/such/thing', { authorization: `Bearer ${key}` });
    expect({ status: answer.status, code: code(answer) }).toEqual({ status: 404, code: 'not-found' });
  });
});
