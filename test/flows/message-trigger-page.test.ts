import { beforeAll, describe, expect, it } from 'vitest';
import { createPage } from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { type AdminRequest, logInAdminAndViewer } from '../support/admin-session.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';

/** A Trigger block choosing a message event must also choose the chat page the flow listens to (spec, Events). */
const { db, api, shop, receiver } = useSuite({ api: true, shop: true, receiver: true });
let admin: AdminRequest;
let pageId: string;

beforeAll(async () => {
  ({ admin } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
  pageId = (await withShop(db.app, shop.shopId, (tx) => createPage(tx, shop.shopId, 'Fanpage'))).id;
});

interface Flow {
  id: string;
  eventType: string;
  pageId: string | null;
}

async function expectPageRequired(response: Response): Promise<void> {
  const body = await expectProblem(response, 400, 'validation-failed');
  expect(body.errors).toEqual([{ path: 'pageId', message: 'required for message events' }]);
}

const flowOf = async (id: string) => (await (await admin('GET', `/flows/${id}`)).json()) as Flow;

describe('a Trigger on a message event', () => {
  it.each(['message.received', 'message.sent'])('names a chat page: %s without one is refused when saved', async (eventType) => {
    const flow = { name: 'Messages', eventType, url: receiver.url(eventType) };
    await expectPageRequired(await admin('POST', '/flows', flow));
    await expectPageRequired(await admin('POST', '/flows', { ...flow, pageId: null }));
    const created = await admin('POST', '/flows', { ...flow, pageId });
    expect(created.status, await created.clone().text()).toBe(201);
    const { flow: saved } = (await created.json()) as { flow: Flow };
    expect(saved).toMatchObject({ eventType, pageId });

    // An edit cannot take the page away.
    await expectPageRequired(await admin('PATCH', `/flows/${saved.id}`, { pageId: null }));
    expect(await flowOf(saved.id)).toMatchObject({ eventType, pageId });
  });

  it('is refused when an edit turns a flow to a message event without naming a page', async () => {
    const created = await admin('POST', '/flows', { name: 'Products', eventType: 'product.updated', url: receiver.url('products') });
    expect(created.status, await created.clone().text()).toBe(201);
    const { flow } = (await created.json()) as { flow: Flow };
    expect(flow.pageId).toBeNull();
    await expectPageRequired(await admin('PATCH', `/flows/${flow.id}`, { eventType: 'message.received' }));
    const edited = await admin('PATCH', `/flows/${flow.id}`, { eventType: 'message.received', pageId });
    expect(edited.status, await edited.clone().text()).toBe(200);
    expect(await edited.json()).toMatchObject({ eventType: 'message.received', pageId });
  });
});
