import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../support/api.js';
import { useSuite } from '../support/suite.js';
import { generateApiKey } from '../../domain/access/api-key-format.js';
import { clientAddressBucket } from '../../api/plugins/client-address.js';

const { db, api: direct } = useSuite({ api: { requestTimeoutMs: 1_000 } });
let behindProxy: TestApi;

beforeAll(async () => {
  behindProxy = await startTestApi(db.app, undefined, { trustProxy: ['127.0.0.1'] });
});
afterAll(async () => {
  await behindProxy?.close();
});

/** An unknown key from `forwardedFor` (as a proxy would name the client): the invalid-key counter's remaining count. */
async function unknownKeyRemaining(api: TestApi, forwardedFor: string): Promise<number> {
  const response = await fetch(`${api.baseUrl}/api/open/v1/shop`, {
    headers: { authorization: `Bearer ${generateApiKey()}`, 'x-forwarded-for': forwardedFor },
  });
  expect(response.status).toBe(401);
  return Number(response.headers.get('x-ratelimit-remaining'));
}

describe('the client address of the invalid-key counter', () => {
  it('buckets IPv4 by address and IPv6 by /64', () => {
    expect(clientAddressBucket('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressBucket('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientAddressBucket('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(clientAddressBucket('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('ignores X-Forwarded-For unless a trusted proxy sent it: a client cannot pick its own counter', async () => {
    const first = await unknownKeyRemaining(direct, '198.51.100.1');
    const second = await unknownKeyRemaining(direct, '198.51.100.2');
    expect(second).toBe(first - 1);
  });

  it('counts each client behind a trusted proxy apart, and a whole IPv6 /64 as one client', async () => {
    const a1 = await unknownKeyRemaining(behindProxy, '192.0.2.10');
    const a2 = await unknownKeyRemaining(behindProxy, '192.0.2.10');
    const b1 = await unknownKeyRemaining(behindProxy, '192.0.2.11');
    expect(a2).toBe(a1 - 1);
    expect(b1).toBe(599);

    const v6a = await unknownKeyRemaining(behindProxy, '2001:db8:aa:1::1');
    const v6b = await unknownKeyRemaining(behindProxy, '2001:db8:aa:1:dead:beef:0:2');
    const v6other = await unknownKeyRemaining(behindProxy, '2001:db8:aa:2::1');
    expect(v6a).toBe(599);
    expect(v6b).toBe(598);
    expect(v6other).toBe(599);
  });
});

describe('request time-out', () => {
  it('drops a client that trickles its request in beyond REQUEST_TIMEOUT_MS', async () => {
    const { hostname, port } = new URL(direct.baseUrl);
    const socket = connect({ host: hostname, port: Number(port) });
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = new Promise<number>((resolve) => {
      const opened = Date.now();
      socket.on('close', () => resolve(Date.now() - opened));
    });
    // Headers only, never the end of them: the server must not wait for ever.
    socket.write('GET /api/open/v1/shop HTTP/1.1\r\nHost: localhost\r\n');
    const elapsed = await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(elapsed).toBeLessThan(20_000);
  });
});
