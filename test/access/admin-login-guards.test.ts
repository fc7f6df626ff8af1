import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';
import { expectProblem } from '../support/problems.js';
import { adminSessionRoutes } from '../../api/routes/access/admin-session.js';
import { ConcurrencyLimit } from '../../domain/access/concurrency-limit.js';
import { LOGIN_RATE_LIMITS } from '../../domain/access/login-guards.js';
import { addMember } from '../../domain/access/users.js';

/** The one slot of the login routes mounted at /bounded, which a test holds. */
const boundedChecks = new ConcurrencyLimit(1);

const PASSWORD = 'correct horse battery staple';
const MEMBERS = ['alice', 'bob', 'carol', 'dave', 'erin'] as const;
const email = (name: string) => `${name}@guards.test`;

const { db, api, shop } = useSuite({
  api: {
    routes: (app, db) => {
      void app.register(adminSessionRoutes, { prefix: '/bounded', sql: db.app, secureCookie: true, passwordChecks: boundedChecks });
    },
  },
  shop: true,
});
beforeAll(async () => {
  for (const name of MEMBERS) await addMember(db.app, shop.shopId, { email: email(name), name, password: PASSWORD });
});

/** One login attempt from `address` (request.ip), answered as a fetch Response. */
async function attempt(
  body: { shop?: string; email: string; password?: string },
  address: string,
  path = '/api/admin/session',
): Promise<Response> {
  const reply = await api.app.inject({
    method: 'POST',
    url: path,
    payload: { shop: shop.slug, password: PASSWORD, ...body },
    remoteAddress: address,
  });
  return new Response(reply.body, {
    status: reply.statusCode,
    headers: Object.entries(reply.headers).map(([name, value]) => [name, String(value)]),
  });
}

async function expectRateLimited(response: Response): Promise<number> {
  await expectProblem(response, 429, 'rate-limited');
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  return retryAfter;
}

/** The counters use fixed one-minute windows (database clock): start a sequence only with `seconds` of it left. */
async function awaitWindowRoom(seconds: number): Promise<void> {
  const [row] = await db.admin<{ left: number }[]>`select 60 - extract(second from clock_timestamp())::float8 as left`;
  if (row!.left < seconds) await sleep((row!.left + 0.2) * 1000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(run: () => Promise<Response>, status: number): Promise<number> {
  const started = performance.now();
  const response = await run();
  expect(response.status).toBe(status);
  return performance.now() - started;
}

describe('admin login throttling', () => {
  it('refuses the sixth attempt for one account in a minute with 429 and Retry-After, even with the right password', async () => {
    await awaitWindowRoom(20);
    for (let i = 0; i < LOGIN_RATE_LIMITS.account; i++) {
      await expectProblem(await attempt({ email: email('alice'), password: `wrong ${i}` }, '198.51.100.1'), 401, 'invalid-credentials');
    }
    // The account counts, whatever the address; its e-mail in another spelling too.
    await expectRateLimited(await attempt({ email: ' ALICE@guards.test' }, '198.51.100.2'));
    // Another account from another address is not affected.
    expect((await attempt({ email: email('bob') }, '198.51.100.3')).status).toBe(200);
  });

  it('gives a successful login its attempt back, so only failures use up the account', async () => {
    await awaitWindowRoom(20);
    for (let i = 0; i <= LOGIN_RATE_LIMITS.account; i++) {
      expect((await attempt({ email: email('carol') }, '198.51.100.4')).status).toBe(200);
    }
  });

  it('counts every attempt of a client address, across e-mails: over the limit it is 429 and other addresses go on', async () => {
    await awaitWindowRoom(20);
    const address = '203.0.113.9';
    for (let i = 0; i < LOGIN_RATE_LIMITS.address; i++) {
      await expectProblem(await attempt({ email: `nobody-${i}@guards.test`, password: 'guess' }, address), 401, 'invalid-credentials');
    }
    await expectRateLimited(await attempt({ email: email('dave') }, address));
    expect((await attempt({ email: email('dave') }, '203.0.113.10')).status).toBe(200);
  });

  it('answers 429 with Retry-After: 1 at once, without queuing, when every password-check slot is taken', async () => {
    const release = boundedChecks.tryAcquire()!;
    try {
      const refused = await Promise.race([
        attempt({ email: email('erin') }, '192.0.2.1', '/bounded/session'),
        sleep(10_000, 'queued' as const),
      ]);
      expect(refused).not.toBe('queued');
      await expectProblem(refused as Response, 429, 'rate-limited');
      expect((refused as Response).headers.get('retry-after')).toBe('1');
    } finally {
      release();
    }
    expect((await attempt({ email: email('erin') }, '192.0.2.1', '/bounded/session')).status).toBe(200);
  });

  it('refuses an unknown shop as slowly as a wrong password (the same slow hash runs)', async () => {
    const wrong: number[] = [];
    const unknownShop: number[] = [];
    // Within the account limit: four wrong passwords, four tries of the unknown shop, interleaved.
    for (let i = 0; i < LOGIN_RATE_LIMITS.account - 1; i++) {
      wrong.push(await timed(() => attempt({ email: email('bob'), password: 'wrong' }, '192.0.2.20'), 401));
      unknownShop.push(await timed(() => attempt({ shop: 'no-such-shop', email: email('bob') }, '192.0.2.21'), 401));
    }
    // Without the hash an unknown shop answers in a few ms against ~90 ms; allow for noise.
    expect(median(unknownShop) * 3).toBeGreaterThan(median(wrong));
  });
});
