import { beforeAll, describe, expect, it } from 'vitest';
import { createFlow } from '../../domain/flows/index.js';
import { SHOP_CAPS, withShop } from '../../domain/kernel/index.js';
import { logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { testSecretsKey } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

const { db, api, shop } = useSuite({ api: true, shop: true });
const MAX_FLOWS_PER_SHOP = SHOP_CAPS.flows.limit;
let owner: AdminRequest;
let viewer: AdminRequest;

beforeAll(async () => {
  ({ admin: owner, viewer } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
});

const inTheShop = <T>(work: Parameters<typeof withShop<T>>[2]) => withShop(db.app, shop.shopId, work);
const flowInput = (name: string) => ({ name, eventType: 'product.updated', url: 'https://hooks.example.com/limits' });
const createdByOperator = (name: string) => inTheShop((tx) => createFlow(tx, shop.shopId, flowInput(name), null, testSecretsKey));

/** Creates flows until the shop has `count`. */
async function fillTo(count: number): Promise<void> {
  for (let have = await flowCount(); have < count; have += 1) await createdByOperator(`Flow ${have + 1}`);
}

async function flowCount(): Promise<number> {
  return (await inTheShop((tx) => tx<{ count: number }[]>`select count(*)::int as count from flows`))[0]!.count;
}

interface FlowPage {
  data: { id: string; name: string; lastDelivery: unknown }[];
  nextCursor: string | null;
}

async function listPage(query: string): Promise<FlowPage> {
  const response = await viewer('GET', `/flows?${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as FlowPage;
}

describe('the flows list', () => {
  it('pages by cursor: every flow exactly once, oldest first; a bad cursor or limit is refused', async () => {
    await fillTo(23);
    const seen: string[] = [];
    let page = await listPage('limit=5');
    const pages = [page];
    while (page.nextCursor) {
      page = await listPage(`limit=5&cursor=${encodeURIComponent(page.nextCursor)}`);
      pages.push(page);
    }
    for (const { data } of pages) seen.push(...data.map((flow) => flow.id));
    expect(pages.map(({ data }) => data.length)).toEqual([5, 5, 5, 5, 3]);
    const whole = await listPage('');
    expect(whole.nextCursor).toBeNull();
    expect(whole.data).toHaveLength(23);
    expect(seen).toEqual(whole.data.map((flow) => flow.id));
    expect(whole.data.map((flow) => flow.name)).toEqual(Array.from({ length: 23 }, (_, index) => `Flow ${index + 1}`));
    expect(whole.data[0]).toMatchObject({ name: 'Flow 1', lastDelivery: null });

    const cursor = pages[0]!.nextCursor!;
    await expectProblem(await viewer('GET', `/flows?limit=5&cursor=not-a-cursor`), 400, 'invalid-cursor');
    // One character changed (never to itself, or the cursor would still be good).
    const tampered = `${cursor.slice(0, -1)}${cursor.endsWith('A') ? 'B' : 'A'}`;
    await expectProblem(await viewer('GET', `/flows?limit=5&cursor=${tampered}`), 400, 'invalid-cursor');
    // A cursor is bound to the limit it was issued with.
    await expectProblem(await viewer('GET', `/flows?limit=6&cursor=${cursor}`), 400, 'invalid-cursor');
    await expectProblem(await viewer('GET', '/flows?limit=0'), 400, 'validation-failed');
    await expectProblem(await viewer('GET', '/flows?limit=101'), 400, 'validation-failed');
  });
});

describe(`at most ${MAX_FLOWS_PER_SHOP} flows a shop`, () => {
  const changes = async () =>
    (
      await inTheShop(
        (tx) => tx<{ flows: number; secrets: number; log: number }[]>`
          select (select count(*)::int from flows) as flows, (select count(*)::int from webhook_signing_secrets) as secrets,
                 (select count(*)::int from shop_log where action = 'flow.created') as log`,
      )
    )[0]!;

  it('refuses the 51st flow with 409 and changes nothing', async () => {
    await fillTo(MAX_FLOWS_PER_SHOP);
    const before = await changes();
    expect(before.flows).toBe(MAX_FLOWS_PER_SHOP);
    const refused = await expectProblem(await owner('POST', '/flows', { ...flowInput('One too many'), state: 'on' }), 409, 'limit-reached');
    expect(refused.detail).toMatch(/already has 50 flows, the most one shop may have \(50\)/);
    expect(await changes()).toEqual(before);
  });

  it('lets only one of two creations at 49 through, the second waiting for the first to commit', async () => {
    await inTheShop((tx) => tx`delete from flows where id = (select id from flows order by created_at desc limit 1)`);
    expect(await flowCount()).toBe(MAX_FLOWS_PER_SHOP - 1);
    let commitFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => (commitFirst = resolve));
    let firstCreated!: () => void;
    const firstHasCreated = new Promise<void>((resolve) => (firstCreated = resolve));
    // The first creation holds its transaction open after inserting the 50th flow.
    const first = inTheShop(async (tx) => {
      await createFlow(tx, shop.shopId, flowInput('Fiftieth'), null, testSecretsKey);
      firstCreated();
      await firstMayCommit;
    });
    await firstHasCreated;
    const second = createdByOperator('Fifty-first').then(
      () => 'created',
      (error: { code?: string }) => error.code,
    );
    // Without the lock the second would count 49 and commit now.
    const early = await Promise.race([second, new Promise((resolve) => setTimeout(() => resolve('waiting'), 500))]);
    commitFirst();
    await first;
    expect(early).toBe('waiting');
    await expect(second).resolves.toBe('limit-reached');
    expect(await flowCount()).toBe(MAX_FLOWS_PER_SHOP);
  });

  it('answers concurrent creations over HTTP at 49 with one 201, the rest 409', async () => {
    await inTheShop((tx) => tx`delete from flows where id = (select id from flows order by created_at desc limit 1)`);
    const statuses = await Promise.all(
      Array.from({ length: 4 }, async (_, index) => (await owner('POST', '/flows', flowInput(`Racer ${index}`))).status),
    );
    expect(statuses.sort()).toEqual([201, 409, 409, 409]);
    expect(await flowCount()).toBe(MAX_FLOWS_PER_SHOP);
  });
});
