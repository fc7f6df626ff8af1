import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';
import { expectProblem } from '../support/problems.js';
import { adminSessionRoutes } from '../../api/routes/access/admin-session.js';
import { ConcurrencyLimit } from '../../domain/access/concurrency-limit.js';
import { loginDevices } from '../../domain/access/login-devices.js';
import { SessionMisses } from '../../domain/access/session-misses.js';
import { testSecretsKey } from '../support/fixtures.js';
import { failedChecksPerShop, LOGIN_RATE_LIMITS, SHOP_FAILED_CHECKS } from '../../domain/access/login-guards.js';
import { createShop } from '../../domain/access/shops.js';
import { createSql, type Sql } from '../../db/client.js';
import { addMember } from '../../domain/access/users.js';

/**
 * The slots of the routes at /counted, whose tests run side by side (each waits for room in the
 * counters' minute on its own): room for all of them, and a line no check gives up on.
 */
const countedChecks = new ConcurrencyLimit(4, 60_000);
/** The one slot of the login routes mounted at /bounded, which a flood fights over. */
const boundedChecks = new ConcurrencyLimit(1);
/**
 * The one slot of the routes at /crowded, which a test holds; a login waits two seconds for it: long
 * enough that "at once" and "after the wait" stay apart on a loaded machine.
 */
const CROWDED_WAIT_MS = 2_000;
const crowdedChecks = new ConcurrencyLimit(1, CROWDED_WAIT_MS);

const PASSWORD = 'correct horse battery staple';
const MEMBERS = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace'] as const;
const email = (name: string) => `${name}@guards.test`;

/** The clock of the routes at /paced, whose shops have SHOP_FAILED_CHECKS; the tests move it. */
let pacedClock = 0;
const pacedChecks = failedChecksPerShop(SHOP_FAILED_CHECKS, { now: () => pacedClock });
/** The statements the routes at /paced sent to the database. */
let pacedStatements = 0;
let pacedSql: Sql | undefined;
/**
 * The one slot of the routes at /paced-flood, with each shop's failed checks (below). Its line gives
 * up on no one within a test: the question there is who is checked first, not who waits longest.
 */
const floodedChecks = new ConcurrencyLimit(1, 60_000);
/**
 * Each shop's failed checks at /paced-flood, the API's, on a clock that stands still: the flooded
 * shop has its five and gains none while the test runs, so what the test counts does not grow with
 * how long a loaded machine takes to answer (a second's refill is the routes at /paced's to show).
 */
const floodChecks = failedChecksPerShop(SHOP_FAILED_CHECKS, { now: () => 0 });

const { db, api, shop } = useSuite({
  api: {
    routes: (app, db) => {
      const doors = { sql: db.app, secureCookie: true, devices: loginDevices(testSecretsKey), sessionMisses: new SessionMisses() };
      // The throttles and slots apart from each shop's failed checks, which these tests spend freely.
      const unpaced = { ...doors, shopFailedChecks: failedChecksPerShop({ perSecond: 1_000, burst: 1_000 }) };
      void app.register(adminSessionRoutes, { prefix: '/counted', ...unpaced, passwordChecks: countedChecks });
      void app.register(adminSessionRoutes, { prefix: '/bounded', ...unpaced, passwordChecks: boundedChecks });
      void app.register(adminSessionRoutes, { prefix: '/crowded', ...unpaced, passwordChecks: crowdedChecks });
      pacedSql = createSql(db.appUrl, { max: 4, applicationName: 'shopflow-test-paced', onStatement: () => void (pacedStatements += 1) });
      void app.register(adminSessionRoutes, { prefix: '/paced', ...doors, sql: pacedSql, shopFailedChecks: pacedChecks });
      void app.register(adminSessionRoutes, {
        prefix: '/paced-flood',
        ...doors,
        shopFailedChecks: floodChecks,
        passwordChecks: floodedChecks,
      });
    },
  },
  shop: true,
});
afterAll(async () => {
  await pacedSql?.end();
});
beforeAll(async () => {
  for (const name of MEMBERS) await addMember(db.app, shop.shopId, { email: email(name), name, password: PASSWORD });
});

/** One login attempt from `address` (request.ip), answered as a fetch Response. */
async function attempt(
  body: { shop?: string; email: string; password?: string },
  address: string,
  path = '/counted/session',
  cookies: Record<string, string> = {},
): Promise<Response> {
  const reply = await api.app.inject({
    method: 'POST',
    url: path,
    payload: { shop: shop.slug, password: PASSWORD, ...body },
    remoteAddress: address,
    cookies,
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

/** `count` wrong passwords for `name` from `address`, each refused as a wrong password. */
async function guess(name: string, address: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await expectProblem(await attempt({ email: email(name), password: `wrong ${i}` }, address), 401, 'invalid-credentials');
  }
}

/** The counters' current one-minute window (database clock): its start, and the seconds left in it. */
async function counterWindow(): Promise<{ start: number; left: number }> {
  const [row] = await db.admin<{ start: number; left: number }[]>`
    select extract(epoch from date_trunc('minute', clock_timestamp()))::float8 as start,
      60 - extract(second from clock_timestamp())::float8 as left`;
  return row!;
}

/**
 * Runs `sequence` within one of the counters' fixed one-minute windows: begun with `seconds` of it
 * left. A run a loaded machine carried past its window's end counted its attempts in two windows and
 * proves nothing when it fails: it runs again from a window none of its attempts counted in.
 */
async function inOneWindow(seconds: number, sequence: () => Promise<void>): Promise<void> {
  for (let run = 1; ; run++) {
    let window = await counterWindow();
    if (window.left < seconds) {
      await sleep((window.left + 0.2) * 1000);
      window = await counterWindow();
    }
    try {
      await sequence();
      return;
    } catch (failure) {
      const now = await counterWindow();
      if (now.start === window.start || run === 3) throw failure;
      await sleep((now.left + 0.2) * 1000);
    }
  }
}

/** A test of counted attempts, beside the others of its kind, its sequence within one window (up to three runs of it). */
const countedInOneWindow = (name: string, seconds: number, sequence: () => Promise<void>) =>
  it.concurrent(name, () => inOneWindow(seconds, sequence), 200_000);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function timed(run: () => Promise<Response>, status: number): Promise<number> {
  const started = performance.now();
  const response = await run();
  expect(response.status).toBe(status);
  return performance.now() - started;
}

describe('admin login throttling', () => {
  countedInOneWindow(
    "throttles a guessing address at the owner's account while the owner's right password from another address gets in",
    20,
    async () => {
      const attacker = '198.51.100.1';
      await guess('alice', attacker, LOGIN_RATE_LIMITS.accountAddress);
      // The attacker's address is done for this account, right password or not, in any spelling of the e-mail.
      await expectRateLimited(await attempt({ email: email('alice') }, attacker));
      await expectRateLimited(await attempt({ email: ' ALICE@guards.test', password: 'wrong again' }, attacker));
      // The owner, elsewhere, is not locked out; and their success gives the attacker nothing back.
      expect((await attempt({ email: email('alice') }, '198.51.100.2')).status).toBe(200);
      await expectRateLimited(await attempt({ email: email('alice') }, attacker));
      // Another account from the attacker's address is still only behind the address limit.
      expect((await attempt({ email: email('bob') }, attacker)).status).toBe(200);
    },
  );

  countedInOneWindow(
    'slows an account guessed at from many addresses down to one attempt a minute per address, which the right password passes',
    30,
    async () => {
      // Each address as many failures as it may: together they use up the account's budget.
      const guessers = LOGIN_RATE_LIMITS.accountSlowDown / LOGIN_RATE_LIMITS.accountAddress;
      for (let i = 0; i < guessers; i++) await guess('frank', `198.51.100.${10 + i}`, LOGIN_RATE_LIMITS.accountAddress);
      // From now on an address gets one attempt: a wrong one leaves it 429 for the rest of the minute.
      await guess('frank', '198.51.100.40', 1);
      await expectRateLimited(await attempt({ email: email('frank') }, '198.51.100.40'));
      // The owner's right password, first thing from their address, still gets in.
      expect((await attempt({ email: email('frank') }, '198.51.100.41')).status).toBe(200);
      // Other accounts are not slowed down.
      await guess('grace', '198.51.100.42', 1);
      expect((await attempt({ email: email('grace') }, '198.51.100.42')).status).toBe(200);
    },
  );

  countedInOneWindow('gives a successful login its attempt back, so only failures use up the account', 20, async () => {
    for (let i = 0; i <= LOGIN_RATE_LIMITS.accountAddress; i++) {
      expect((await attempt({ email: email('carol') }, '198.51.100.4')).status).toBe(200);
    }
  });

  countedInOneWindow(
    'counts every attempt of a client address, across e-mails: over the limit it is 429 and other addresses go on',
    20,
    async () => {
      const address = '203.0.113.9';
      for (let i = 0; i < LOGIN_RATE_LIMITS.address; i++) {
        await expectProblem(await attempt({ email: `nobody-${i}@guards.test`, password: 'guess' }, address), 401, 'invalid-credentials');
      }
      await expectRateLimited(await attempt({ email: email('dave') }, address));
      expect((await attempt({ email: email('dave') }, '203.0.113.10')).status).toBe(200);
    },
  );

  it('lets a flood of concurrent logins from one address take one check slot only: the owner from another address gets in', async () => {
    const attacker = '192.0.2.66';
    // Guesses at many accounts at once (within the address limit), as fast as they go.
    const flood = Promise.all(
      Array.from({ length: 20 }, (_, i) => attempt({ email: `flood-${i}@guards.test`, password: 'guess' }, attacker, '/bounded/session')),
    );
    await sleep(20);
    const owner = await attempt({ email: email('erin') }, '192.0.2.1', '/bounded/session');
    expect(owner.status).toBe(200);
    const answers = await flood;
    // The address had one check at a time; the others were turned away at once with Retry-After: 1.
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) expect(answer.headers.get('retry-after')).toBe('1');
    expect(answers.every((answer) => answer.status === 401 || answer.status === 429)).toBe(true);
  });

  it('refuses a second check from an address that has one running at once, and lets others wait their turn', async () => {
    const release = (await crowdedChecks.acquire('192.0.2.30'))!;
    expect(release).toBeDefined();
    const started = performance.now();
    const sameAddress = await attempt({ email: email('erin') }, '192.0.2.30', '/crowded/session');
    expect(performance.now() - started).toBeLessThan(CROWDED_WAIT_MS * 0.75);
    await expectProblem(sameAddress, 429, 'rate-limited');
    expect(sameAddress.headers.get('retry-after')).toBe('1');
    // Another address waits for the slot; past the wait it is 429 with Retry-After: 1.
    const waited = performance.now();
    const tooLong = await attempt({ email: email('erin') }, '192.0.2.31', '/crowded/session');
    expect(performance.now() - waited).toBeGreaterThanOrEqual(CROWDED_WAIT_MS - 10);
    await expectProblem(tooLong, 429, 'rate-limited');
    expect(tooLong.headers.get('retry-after')).toBe('1');
    // Freed while it waits, the slot goes to it.
    setTimeout(release, 100);
    expect((await attempt({ email: email('erin') }, '192.0.2.32', '/crowded/session')).status).toBe(200);
    // The address's slot is its own again once released.
    const again = await crowdedChecks.acquire('192.0.2.30');
    expect(again).toBeDefined();
    again!();
  });

  it('refuses an unknown shop as slowly as a wrong password (the same slow hash runs)', async () => {
    const wrong: number[] = [];
    const unknownShop: number[] = [];
    // Within the account limit: four wrong passwords, four tries of the unknown shop, interleaved.
    for (let i = 0; i < LOGIN_RATE_LIMITS.accountAddress - 1; i++) {
      wrong.push(await timed(() => attempt({ email: email('bob'), password: 'wrong' }, '192.0.2.20'), 401));
      unknownShop.push(await timed(() => attempt({ shop: 'no-such-shop', email: email('bob') }, '192.0.2.21'), 401));
    }
    // Without the hash an unknown shop answers in a few ms against ~90 ms; allow for noise.
    expect(median(unknownShop) * 3).toBeGreaterThan(median(wrong));
  });

  it('checks a login from a browser the account logged in from before in a pool of its own, which a flood cannot fill', async () => {
    // A login leaves its browser a mark for that account, sent back only to the login.
    const first = await attempt({ email: email('grace') }, '192.0.2.40', '/crowded/session');
    expect(first.status).toBe(200);
    const setCookies = first.headers.get('set-cookie') ?? '';
    const mark = /shopflow_device=([^;]+);[^,]*Path=\/api\/admin\/session/i.exec(setCookies)?.[1];
    expect(mark, setCookies).toBeDefined();
    expect(setCookies).toMatch(/shopflow_device=[^;]+;.*HttpOnly/i);
    const other = (await attempt({ email: email('frank') }, '192.0.2.41', '/crowded/session')).headers.get('set-cookie');
    const markOfFrank = /shopflow_device=([^;]+)/.exec(other ?? '')?.[1];
    // Every other check slot taken, as by a flood of guesses.
    const release = (await crowdedChecks.acquire('192.0.2.99'))!;
    try {
      // A new browser waits its turn, in vain; so does one that carries another account's mark.
      await expectRateLimited(await attempt({ email: email('grace') }, '192.0.2.42', '/crowded/session'));
      await expectRateLimited(
        await attempt({ email: email('grace') }, '192.0.2.43', '/crowded/session', { shopflow_device: markOfFrank! }),
      );
      // Grace's own browser gets in, from any address.
      expect((await attempt({ email: email('grace') }, '192.0.2.44', '/crowded/session', { shopflow_device: mark! })).status).toBe(200);
    } finally {
      release();
    }
  });

  it('lets a member log in from her usual browser while a hundred addresses flood the login with guesses', async () => {
    const first = await attempt({ email: email('dave') }, '192.0.2.50', '/bounded/session');
    expect(first.status).toBe(200);
    const mark = /shopflow_device=([^;]+)/.exec(first.headers.get('set-cookie') ?? '')?.[1];
    let flooding = true;
    const guesser = async (n: number) => {
      const answers: number[] = [];
      while (flooding)
        answers.push((await attempt({ email: `guess-${n}@guards.test`, password: 'guess' }, `198.51.100.${n}`, '/bounded/session')).status);
      return answers;
    };
    const flood = Promise.all(Array.from({ length: 100 }, (_, n) => guesser(n + 1)));
    await sleep(200);
    try {
      const member = await attempt({ email: email('dave') }, '192.0.2.51', '/bounded/session', { shopflow_device: mark! });
      expect(member.status).toBe(200);
    } finally {
      flooding = false;
    }
    const answers = (await flood).flat();
    // The flood was real: its guesses were checked, and turned away when the one slot was taken.
    expect(answers.filter((status) => status === 401).length).toBeGreaterThan(0);
    expect(answers.filter((status) => status === 429).length).toBeGreaterThan(0);
  });

  it("refuses wrong passwords at a shop past its failed checks before any check, and lets a member's usual browser in", async () => {
    const first = await attempt({ email: email('bob') }, '192.0.2.60', '/paced/session');
    expect(first.status).toBe(200);
    const mark = /shopflow_device=([^;]+)/.exec(first.headers.get('set-cookie') ?? '')?.[1];
    // A successful login gave its check back: the shop still has its five.
    for (let i = 0; i < SHOP_FAILED_CHECKS.burst; i++)
      await expectProblem(
        await attempt({ email: `paced-${i}@guards.test`, password: 'guess' }, `198.51.100.${60 + i}`, '/paced/session'),
        401,
        'invalid-credentials',
      );
    // Spent: the next guess, and the right password from a browser the account does not know, wait for the next check.
    const wait = String(1 / SHOP_FAILED_CHECKS.perSecond);
    for (const body of [{ email: 'paced-9@guards.test', password: 'guess' }, { email: email('bob') }]) {
      const refused = await attempt(body, '198.51.100.70', '/paced/session');
      await expectProblem(refused, 429, 'rate-limited');
      expect(refused.headers.get('retry-after')).toBe(wait);
    }
    // From then on a guess naming the shop is refused before any database work, from any address.
    const before = pacedStatements;
    const early = await attempt({ email: 'paced-10@guards.test', password: 'guess' }, '198.51.100.74', '/paced/session');
    await expectProblem(early, 429, 'rate-limited');
    expect(early.headers.get('retry-after')).toBe(wait);
    expect(pacedStatements - before).toBe(0);
    expect((await attempt({ email: email('bob') }, '198.51.100.71', '/paced/session', { shopflow_device: mark! })).status).toBe(200);
    // Other shops are not held back: a login naming no such shop has a bucket of its own.
    await expectProblem(
      await attempt({ shop: 'no-such-shop', email: email('bob') }, '198.51.100.72', '/paced/session'),
      401,
      'invalid-credentials',
    );
    // A check's worth of time later the shop has one again.
    pacedClock += 1_000 / SHOP_FAILED_CHECKS.perSecond;
    expect((await attempt({ email: email('bob') }, '198.51.100.73', '/paced/session')).status).toBe(200);
  });

  it("lets another shop's member log in from a new browser while a hundred addresses flood one shop with guesses", async () => {
    const other = await createShop(db.app, { slug: `guards-other-${Date.now().toString(36)}`, name: 'Other shop' });
    await addMember(db.app, other.id, { email: email('olga'), name: 'Olga', password: PASSWORD });
    let flooding = true;
    const answers: number[] = [];
    const guesser = async (n: number) => {
      while (flooding)
        answers.push(
          (await attempt({ email: `flood-${n}@guards.test`, password: 'guess' }, `198.51.100.${n}`, '/paced-flood/session')).status,
        );
    };
    const flood = Promise.all(Array.from({ length: 100 }, (_, n) => guesser(n + 1)));
    const checked = () => answers.filter((status) => status === 401).length;
    // The flood's first guess is checked: all hundred are in line by then, or refused.
    while (checked() === 0) await sleep(20);
    const checkedBefore = checked();
    try {
      const member = await attempt({ shop: other.slug, email: email('olga') }, '192.0.2.70', '/paced-flood/session');
      expect(member.status).toBe(200);
      // Her check came after the rest of the flood's five at most, not after the whole line of guesses
      // (about 99 without each shop's failed checks).
      expect(checked() - checkedBefore).toBeLessThan(SHOP_FAILED_CHECKS.burst);
    } finally {
      flooding = false;
    }
    await flood;
    // The flood was real: a few guesses were checked, the rest refused before their checks.
    expect(answers.filter((status) => status === 429).length).toBeGreaterThan(answers.length / 2);
  });
});
