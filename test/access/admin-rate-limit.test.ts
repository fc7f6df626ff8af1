import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_REQUESTS_PER_MINUTE } from '../../api/plugins/admin-session.js';
import { ADMIN_PASSWORD, addAdminAndViewer, adminLogIn, type AdminRequest } from '../support/admin-session.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

const { db, api, shop } = useSuite({ api: true, shop: true });
const logIn = (email: string) => adminLogIn(api.baseUrl, { shop: shop.slug, email, password: ADMIN_PASSWORD });
let admin: AdminRequest;
let viewer: AdminRequest;

beforeAll(async () => {
  await addAdminAndViewer(db.app, shop.shopId);
  [admin, viewer] = [await logIn('admin@shop.test'), await logIn('viewer@shop.test')];
});

/** Waits for the start of a fresh one-minute window when too little of the current one is left. */
async function freshWindow(neededSeconds: number) {
  const secondsLeft = 60 - new Date().getUTCSeconds();
  if (secondsLeft < neededSeconds) await new Promise((resolve) => setTimeout(resolve, secondsLeft * 1000 + 200));
}

describe('the admin API rate limit', () => {
  it('answers one person 429 past the limit, reads and writes alike, across sessions; another member of the shop goes on', async () => {
    await freshWindow(25);
    // Reads, twenty at a time, up to the limit: all served, each with the counter's headers.
    const served: Response[] = [];
    for (let sent = 0; sent < ADMIN_REQUESTS_PER_MINUTE; sent += 20) {
      served.push(...(await Promise.all(Array.from({ length: 20 }, () => admin('GET', '/session')))));
    }
    expect(served.map((response) => response.status)).toEqual(Array(ADMIN_REQUESTS_PER_MINUTE).fill(200));
    expect(served[0]!.headers.get('x-ratelimit-limit')).toBe(String(ADMIN_REQUESTS_PER_MINUTE));
    expect(Math.min(...served.map((response) => Number(response.headers.get('x-ratelimit-remaining'))))).toBe(0);

    // One more, a write: refused before it changes anything.
    const refused = await admin('POST', '/tags', { name: 'Over the limit' });
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    await expectProblem(refused, 429, 'rate-limited');
    expect(await db.admin`select 1 from tags where shop_id = ${shop.shopId}`).toHaveLength(0);

    // A new session of the same person counts in the same window.
    await expectProblem(await (await logIn('admin@shop.test'))('GET', '/session'), 429, 'rate-limited');

    // The other member has a counter of their own.
    const other = await viewer('GET', '/session');
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe(String(ADMIN_REQUESTS_PER_MINUTE - 1));
  });
});
