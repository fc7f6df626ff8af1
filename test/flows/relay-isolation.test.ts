import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminCliJson } from '../support/admin-cli.js';
import { logInAdminAndViewer, type AdminRequest } from '../support/admin-session.js';
import { createShopFixture, type ShopFixture } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { writeEvent } from '../../domain/events/outbox.js';
import { EVENT_EXAMPLES } from '../../domain/flows/event-samples.js';
import { envelopeId } from '../support/deliveries.js';

/**
 * Issue 46: what one shop's flows cost the relay stays that shop's. A condition is refused on save
 * when its worst case is past the budget, and the costliest one allowed is matched on a product of
 * 2,048 variants; an event whose matching throws is set aside with its reason, the others flow on,
 * and the operator queues it again. The real relay, worker and engine.
 */
const { db, api, receiver, shop } = useSuite({ api: true, shop: true, receiver: true, worker: true, relay: true });
let admin: AdminRequest;
let other: ShopFixture;

beforeAll(async () => {
  ({ admin } = await logInAdminAndViewer(api.baseUrl, db.app, shop));
  other = await createShopFixture(db.app);
});

const VARIANT = (EVENT_EXAMPLES['product.updated'].data as { variants: Record<string, unknown>[] }).variants[0]!;
/** A product of 2,048 variants, priced 100000 to 102047. */
const bigProduct = () => ({
  ...EVENT_EXAMPLES['product.updated'].data,
  id: randomUUID(),
  variants: Array.from({ length: 2_048 }, (_, index) => ({
    ...VARIANT,
    id: randomUUID(),
    code: `V-${index}`,
    price: String(100_000 + index),
    keywords: [`v${index}`],
  })),
});

function emit(shopId: string, data: Record<string, unknown>): Promise<string> {
  return withShop(db.app, shopId, (tx) =>
    writeEvent(tx, { shopId, type: 'product.updated', resourceId: randomUUID(), data, changes: { fields: ['name'] } }),
  );
}

/** Ten rules of fifty prices each, none of them a variant's unless `hit` is added to the last list. */
const pricesCondition = (hit?: number) => ({
  match: 'any',
  rules: Array.from({ length: 10 }, (_, rule) => ({
    path: 'data.variants.price',
    operator: 'in',
    value: Array.from({ length: 50 }, (_, index) => (rule === 9 && index === 49 && hit !== undefined ? hit : 1 + rule * 50 + index)),
  })),
});

const envelopeIds = (inbox: string) => receiver.received(inbox).map(envelopeId);

describe('the relay, shared by every shop', () => {
  it('refuses on save a condition whose worst case is past the budget, saying which rule and why, and saves nothing', async () => {
    const flowCount = async () =>
      (await db.admin<{ count: number }[]>`select count(*)::int as count from flows where shop_id = ${shop.shopId}`)[0]!.count;
    const before = await flowCount();
    const keywords = { path: 'data.variants.keywords', operator: 'eq', value: 'x' };
    const refused = await expectProblem(
      await admin('POST', '/flows', {
        name: 'Keywords',
        eventType: 'product.updated',
        url: receiver.url('never'),
        condition: { match: 'any', rules: [keywords, keywords, keywords, keywords] },
      }),
      400,
      'validation-failed',
    );
    // 2,048 variants of 20 keywords: 40,960 values a rule; the fourth rule takes the condition past 150,000.
    expect(refused.errors).toEqual([
      {
        path: 'condition.rules.3.cost',
        message: expect.stringMatching(/data\.variants\.keywords may hold up to 40960 values in one event \(163840 .*at most 150000\)/),
      },
    ]);
    expect(await flowCount()).toBe(before);
    // The same in a test-run's unsaved draft.
    const { flow } = (await (
      await admin('POST', '/flows', { name: 'Draft', eventType: 'product.updated', url: receiver.url('draft') })
    ).json()) as { flow: { id: string } };
    const tried = await expectProblem(
      await admin('POST', `/flows/${flow.id}/test-run`, { condition: { match: 'all', rules: [keywords, keywords, keywords, keywords] } }),
      400,
      'validation-failed',
    );
    expect(tried.errors).toEqual([expect.objectContaining({ path: 'condition.rules.3.cost' })]);
  });

  it('matches the costliest conditions the save check allows on a product of 2,048 variants, and delivers what holds', async () => {
    const [holds, skips] = [randomUUID(), randomUUID()];
    const saved: string[] = [];
    for (const [inbox, condition] of [
      [holds, pricesCondition(102_047)],
      [skips, pricesCondition()],
    ] as const) {
      const response = await admin('POST', '/flows', {
        name: inbox,
        eventType: 'product.updated',
        url: receiver.url(inbox),
        state: 'on',
        condition,
      });
      expect(response.status, await response.clone().text()).toBe(201);
      saved.push(((await response.json()) as { flow: { id: string } }).flow.id);
    }
    const eventId = await emit(shop.shopId, bigProduct());
    await receiver.waitFor(holds, 1);
    expect(envelopeIds(holds)).toEqual([eventId]);
    await expect
      .poll(async () => db.admin`select 1 from shop_log where action = 'flow.run_skipped' and subject_id = ${saved[1]!}`)
      .toHaveLength(1);
    expect(receiver.received(skips)).toHaveLength(0);
    await Promise.all(saved.map((id) => admin('POST', `/flows/${id}/state`, { state: 'off' })));
  });

  it('sets aside an event whose matching keeps failing, delivers the others meanwhile, and delivers it once queued again', async () => {
    const [broken, healthy] = [randomUUID(), randomUUID()];
    const [{ flowId }] = await Promise.all([
      shop.newFlow({ name: 'Broken', eventType: 'product.created', url: receiver.url(broken), state: 'on' }),
      other.newFlow({ name: 'Healthy', eventType: 'product.created', url: receiver.url(healthy), state: 'on' }),
    ]);
    // A condition no version of the save check would take (an operator it does not know): matching it throws.
    await db.admin`update flows set condition = ${db.admin.json({ match: 'all', rules: [{ path: 'data.name', operator: 'like', value: 'x' }] })} where id = ${flowId}`;
    const emitCreated = (shopId: string) =>
      withShop(db.app, shopId, (tx) =>
        writeEvent(tx, {
          shopId,
          type: 'product.created',
          resourceId: randomUUID(),
          data: { ...EVENT_EXAMPLES['product.created'].data, id: randomUUID() },
        }),
      );
    const poison = await emitCreated(shop.shopId);
    const first = await emitCreated(other.shopId);
    await receiver.waitFor(healthy, 1);
    // Tried three times (2 s, then 4 s apart), then off the queue with its reason; the other shop's events go on meanwhile.
    const second = await emitCreated(other.shopId);
    await receiver.waitFor(healthy, 2);
    expect(envelopeIds(healthy)).toEqual([first, second]);
    const setAside = async () =>
      (
        await adminCliJson<{ events: { eventId: string; shopId: string; failures: number; reason: string }[] }>(db.appUrl, [
          'events:set-aside',
        ])
      ).events;
    await expect.poll(setAside, { timeout: 20_000, interval: 500 }).toEqual([
      expect.objectContaining({
        eventId: poison,
        shopId: shop.shopId,
        failures: 3,
        reason: expect.stringMatching(new RegExp(`^Error: flow ${flowId} has a stored condition the relay cannot read: .*operator`, 's')),
      }),
    ]);
    expect(await db.admin`select 1 from event_queue where event_id = ${poison}`).toHaveLength(0);
    expect(receiver.received(broken)).toHaveLength(0);

    // The cause fixed, the operator queues it again: delivered, once.
    await db.admin`update flows set condition = null where id = ${flowId}`;
    expect(await adminCliJson(db.appUrl, ['events:requeue', '--event', poison])).toEqual({ requeued: [poison] });
    await receiver.waitFor(broken, 1);
    expect(envelopeIds(broken)).toEqual([poison]);
    expect(await setAside()).toEqual([]);
  });
});
