import { beforeAll, describe, expect, it } from 'vitest';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { createFlow, deleteFlow, getFlow, updateFlow } from '../../domain/flows/flows.js';
import { withShop } from '../../domain/kernel/tenancy.js';

const { db, shop } = useSuite({ shop: true });
let pages: string[];

beforeAll(async () => {
  pages = await withShop(db.app, shop.shopId, async (tx) =>
    (
      await tx<
        { id: string }[]
      >`insert into pages (shop_id, name) select ${shop.shopId}, 'Page ' || i from generate_series(1, 3) as i returning id`
    ).map((row) => row.id),
  );
});

const inTheShop = <T>(work: Parameters<typeof withShop<T>>[2]) => withShop(db.app, shop.shopId, work);

describe('flows', () => {
  it('refuses an event type that is only an inherited property name (400, not a crash)', async () => {
    for (const eventType of ['constructor', 'toString', '__proto__']) {
      await expect(
        inTheShop((tx) => createFlow(tx, shop.shopId, { name: 'F', eventType, url: 'https://hooks.example.com/x' }, null, testSecretsKey)),
      ).rejects.toMatchObject({
        code: 'validation-failed',
        options: { errors: [{ path: 'eventType', message: 'unknown event type' }] },
      });
    }
  });

  it("keeps the account's pages on an edit that does not name a page, and follows a newly named trigger page", async () => {
    const [first, second, third] = pages as [string, string, string];
    const { flowId } = await inTheShop((tx) =>
      createFlow(
        tx,
        shop.shopId,
        { name: 'Messages', eventType: 'message.received', pageId: first, pageIds: [first, second], url: 'https://hooks.example.com/m' },
        null,
        testSecretsKey,
      ),
    );
    expect((await inTheShop((tx) => updateFlow(tx, flowId, { name: 'Renamed' }, null))).pageIds.sort()).toEqual([first, second].sort());
    expect(await inTheShop((tx) => updateFlow(tx, flowId, { pageId: third }, null))).toMatchObject({
      name: 'Renamed',
      pageId: third,
      pageIds: [third],
    });
    await inTheShop((tx) => deleteFlow(tx, flowId, null));
    await expect(inTheShop((tx) => getFlow(tx, flowId))).rejects.toMatchObject({ code: 'not-found' });
    await expect(inTheShop((tx) => deleteFlow(tx, flowId, null))).rejects.toMatchObject({ code: 'not-found' });
  });
});
