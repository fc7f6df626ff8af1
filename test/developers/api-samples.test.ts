import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ProblemError, type Api } from '../../examples/developer-site/api.js';
import { createOnce } from '../../examples/developer-site/create-once.js';
import { pages } from '../../examples/developer-site/pagination.js';
import { syncPass, type MarkStore } from '../../examples/developer-site/sync.js';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';

/** The developer site's samples that call the API, run as shown against the real API (issue 30: every sample runs). */
const { db, api, shop } = useSuite({ api: true, shop: true });
const run = promisify(execFile);
interface Customer {
  id: string;
  name: string;
  updatedAt: string;
}

/** The samples' address and a key of a new shop (each test its own, so their customers do not mix). */
async function freshApi(): Promise<Api & { shopId: string }> {
  const other = await createShopFixture(db.app);
  const { key } = await other.newKey(['pos.customers.read', 'pos.customers.create', 'pos.customers.update']);
  return { baseUrl: api.baseUrl, apiKey: key, shopId: other.shopId };
}

async function createCustomers(target: Api, names: string[]): Promise<Customer[]> {
  const created: Customer[] = [];
  for (const name of names) created.push((await createOnce<Customer>(target, '/customers', { name })).created);
  return created;
}

let key = '';
beforeAll(async () => {
  key = (await shop.newKey(['pos.customers.read'], 'First call')).key;
});

describe('the developer site samples, against the real API', () => {
  it('first-call.sh answers the shop, the key’s application and its permissions', async () => {
    const env = { ...process.env, SHOPFLOW_URL: api.baseUrl, SHOPFLOW_API_KEY: key };
    const { stdout } = await run('sh', ['examples/developer-site/first-call.sh'], { env });
    expect(JSON.parse(stdout)).toMatchObject({
      id: shop.shopId,
      slug: shop.slug,
      application: { name: 'First call', permissions: ['pos.customers.read'], pageIds: [] },
      readOnly: false,
    });
    // A wrong key fails the command, with the problem on its output.
    const refused = run('sh', ['examples/developer-site/first-call.sh'], { env: { ...env, SHOPFLOW_API_KEY: 'svc_live_wrong' } });
    await expect(refused).rejects.toMatchObject({ stdout: expect.stringContaining('"code":"invalid-api-key"') });
  });

  it('pagination.ts reads every page in order, following nextCursor to its end', async () => {
    const target = await freshApi();
    const created = await createCustomers(target, ['Lê Minh 1', 'Lê Minh 2', 'Lê Minh 3', 'Lê Minh 4', 'Lê Minh 5']);
    const read: Customer[][] = [];
    for await (const rows of pages<Customer>(target, '/customers', new URLSearchParams({ limit: '2' }))) read.push(rows);
    expect(read.map((rows) => rows.length)).toEqual([2, 2, 1]);
    expect(read.flat().map((row) => row.id)).toEqual(created.map((row) => row.id));
  });

  it('sync.ts reads everything first, waits out the safety delay, and catches a change behind its mark through the overlap', async () => {
    const target = await freshApi();
    const [first] = await createCustomers(target, ['Phạm Thu', 'Phạm Hà', 'Phạm Lan']);
    let stored: string | null = null;
    const store: MarkStore = { get: async () => stored, set: async (mark) => void (stored = mark) };
    const copy = new Map<string, Customer>();
    const apply = async (rows: Customer[]) => rows.forEach((row) => copy.set(row.id, row));

    // The first pass has no mark: everything, no delay.
    await syncPass<Customer>(target, '/customers', store, apply);
    expect(copy.size).toBe(3);
    const mark = stored;
    expect(mark).toBe([...copy.values()].map((row) => row.updatedAt).sort()[2]);

    // A change just made is inside the safety delay (2 min 15 s): not in this pass, and the mark stays.
    await fetch(`${api.baseUrl}/api/open/v1/customers/${first!.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Phạm Thu (đổi tên)' }),
    });
    await syncPass<Customer>(target, '/customers', store, apply);
    expect(copy.get(first!.id)!.name).toBe('Phạm Thu');
    expect(stored).toBe(mark);

    // Once out of the delay, the change is stamped 3 minutes ago: behind the mark, inside the overlap.
    await db.admin`update customers set updated_at = now() - interval '3 minutes' where id = ${first!.id}`;
    expect(Date.now() - 3 * 60_000).toBeLessThan(Date.parse(mark!));
    await syncPass<Customer>(target, '/customers', store, apply);
    expect(copy.get(first!.id)!.name).toBe('Phạm Thu (đổi tên)');
    expect(copy.size).toBe(3);
  });

  it('create-once.ts creates once however often it is sent, waits out a key in progress, and does not retry a refusal', async () => {
    const target = await freshApi();
    const first = await createOnce<Customer>(target, '/customers', { name: 'Đỗ Quang' }, 'order-sync-42');
    const again = await createOnce<Customer>(target, '/customers', { name: 'Đỗ Quang' }, 'order-sync-42');
    expect(first.replayed).toBe(false);
    expect(again).toEqual({ created: first.created, replayed: true });

    // As if a first request with this key still ran (claimed 59.3 s ago): 409 with Retry-After: 1, then the
    // claim is abandoned (60 s) and the sample's retry runs the creation.
    await db.admin`
      update idempotency_keys set state = 'running', status_code = null, response_headers = null, response_body = null,
        created_at = now() - interval '59.3 seconds'
      where shop_id = ${target.shopId} and idempotency_key = 'order-sync-42'`;
    const started = Date.now();
    const retried = await createOnce<Customer>(target, '/customers', { name: 'Đỗ Quang' }, 'order-sync-42');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(retried.replayed).toBe(false);

    // A refusal is the answer: thrown at once, not sent again.
    const refusal = createOnce(target, '/customers', { name: '' }, 'order-sync-43');
    await expect(refusal).rejects.toBeInstanceOf(ProblemError);
    await expect(refusal).rejects.toMatchObject({ status: 400, problem: { code: 'validation-failed' } });
  });
});
