import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSql, type Sql } from '../../db/client.js';
import { SESSION_MISSES_PER_MINUTE } from '../../domain/access/session-misses.js';
import { ADMIN_PASSWORD, addAdminAndViewer } from '../support/admin-session.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

/**
 * Issue 46: a request to /api/admin with a made-up session cookie costs the database nothing past a
 * few: a cookie of the wrong shape is refused unread, and an address that sent
 * SESSION_MISSES_PER_MINUTE unknown tokens is refused 429 before any lookup, while a member who logs
 * in from that address goes on. The API on a pool that counts every statement it sends.
 */
const { db, shop } = useSuite({ shop: true });
let statements = 0;
let sql: Sql;
let api: TestApi;

beforeAll(async () => {
  sql = createSql(db.appUrl, { max: 4, applicationName: 'shopflow-test-door', onStatement: () => void (statements += 1) });
  api = await startTestApi(sql);
  await addAdminAndViewer(db.app, shop.shopId);
});
afterAll(async () => {
  await api?.close();
  await sql?.end({ timeout: 1 });
});

const whoAmI = (cookie: string) => fetch(`${api.baseUrl}/api/admin/session`, { headers: { cookie } });
const madeUp = () => `shopflow_session=${randomBytes(32).toString('base64url')}`;

describe('the admin API door', () => {
  it('refuses cookies of the wrong shape without a database statement', async () => {
    const before = statements;
    for (const cookie of ['shopflow_session=x', `shopflow_session=${'a'.repeat(44)}`, 'shopflow_session=%00%00', 'other=1'])
      for (let i = 0; i < 25; i++) await expectProblem(await whoAmI(cookie), 401, 'not-logged-in');
    expect(statements - before).toBe(0);
  });

  it('looks up a few unknown tokens per address, then refuses the rest unread, while a member logging in there goes on', async () => {
    const before = statements;
    for (let i = 0; i < SESSION_MISSES_PER_MINUTE; i++) await expectProblem(await whoAmI(madeUp()), 401, 'not-logged-in');
    const looked = statements - before;
    expect(looked).toBeGreaterThanOrEqual(SESSION_MISSES_PER_MINUTE);
    const flood = statements;
    for (let i = 0; i < 200; i++) {
      const refused = await whoAmI(madeUp());
      await expectProblem(refused, 429, 'rate-limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    expect(statements - flood).toBe(0);

    // A member logs in from the same address: the session just issued passes the door.
    const login = await fetch(`${api.baseUrl}/api/admin/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ shop: shop.slug, email: 'admin@shop.test', password: ADMIN_PASSWORD }),
    });
    expect(login.status).toBe(200);
    const session = /shopflow_session=([^;]+)/.exec(login.headers.get('set-cookie') ?? '')![1]!;
    expect((await whoAmI(`shopflow_session=${session}`)).status).toBe(200);
    await expectProblem(await whoAmI(madeUp()), 429, 'rate-limited');
  });
});
