import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { carrierA, parseCarrierACallback } from '../../adapters/carriers/carrier-a.js';
import { carrierB, parseCarrierBCallback } from '../../adapters/carriers/carrier-b.js';
import { InvalidCarrierCallback } from '../../adapters/carriers/carrier-adapter.js';
import { carrierMilestoneSchema, type CarrierMilestone } from '../../domain/shipments/index.js';
import { CarrierA } from '../../simulators/carriers/carrier-a.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { CallbackInbox } from '../simulators/support.js';
import { orderRequest } from './carrier-order-request.js';
import { testCarrierOptions } from '../support/carriers.js';

/** Callbacks exactly as the simulators send them, parsed into milestones. */
let simulatorA: CarrierA;
let simulatorB: CarrierB;
let inbox: CallbackInbox;

beforeAll(async () => {
  inbox = await CallbackInbox.start();
  [simulatorA, simulatorB] = await Promise.all([CarrierA.start(), CarrierB.start()]);
});
afterAll(async () => {
  await Promise.all([simulatorA?.close(), simulatorB?.close()]);
  await inbox?.close();
});

/** The milestones of every callback that arrived at a path, once `count` have. */
async function milestonesAt(path: string, count: number, parse: (body: unknown) => CarrierMilestone): Promise<CarrierMilestone[]> {
  await vi.waitFor(() => expect(inbox.at(path).length).toBeGreaterThanOrEqual(count));
  return inbox.at(path).map((callback) => carrierMilestoneSchema.parse(parse(callback.body)));
}

describe('carrier A callbacks', () => {
  it('become milestones with the raw status, its state, the hub, the reason and the fee', async () => {
    const path = `/callbacks/carrier-a/${randomUUID()}`;
    const shop = simulatorA.registerShop({ callbackUrl: inbox.url(path) });
    const shipmentId = randomUUID();
    const { trackingCode } = await carrierA(
      { baseUrl: simulatorA.url, credentials: { token: shop.token, shopId: shop.shopId } },
      testCarrierOptions(),
    ).create(orderRequest({ shipmentId }));
    simulatorA.advance(trackingCode, 'picking');
    simulatorA.advance(trackingCode, 'picked');
    simulatorA.advance(trackingCode, 'delivering');
    simulatorA.advance(trackingCode, 'delivery_fail', { reason: 'Khách không nghe máy', reasonCode: 'GHN-DFC1A0' });

    const milestones = await milestonesAt(path, 5, parseCarrierACallback);
    expect(milestones.map((m) => [m.carrierStatus, m.status])).toEqual([
      ['ready_to_pick', 'pending'],
      ['picking', null],
      ['picked', 'delivering'],
      ['delivering', 'delivering'],
      ['delivery_fail', 'delivery_failed'],
    ]);
    for (const milestone of milestones) expect(milestone).toMatchObject({ trackingCode, shipmentId, leg: 'outbound' });
    expect(milestones[0]).toMatchObject({ location: null, reason: null, description: 'New order, waiting to be picked up' });
    expect(milestones[2]!.location).toMatch(/Bưu Cục/);
    expect(milestones[4]).toMatchObject({ reason: 'Khách không nghe máy' });
    expect(Number(milestones[4]!.feeTotal)).toBeGreaterThan(0);
    expect(Date.parse(milestones[4]!.occurredAt)).toBeGreaterThanOrEqual(Date.parse(milestones[0]!.occurredAt));
  });

  it('refuses a body that is not carrier A’s', () => {
    expect(() => parseCarrierACallback({ label_id: 'S1.A1.1', status_id: 3 })).toThrow(InvalidCarrierCallback);
    expect(() => parseCarrierACallback({ OrderCode: 'G1', Status: 'picked', Time: 'yesterday' })).toThrow(InvalidCarrierCallback);
  });
});

describe('carrier B callbacks', () => {
  it('become milestones; a partial delivery ends the outbound leg partially_returned and the return leg adds milestones only', async () => {
    const path = `/callbacks/carrier-b/${randomUUID()}`;
    const shop = simulatorB.registerShop({ callbackUrl: inbox.url(`${path}?secret=s`) });
    const shipmentId = randomUUID();
    const adapter = carrierB(
      { baseUrl: simulatorB.url, credentials: { token: shop.token, clientSource: shop.clientSource } },
      testCarrierOptions(),
    );
    const { trackingCode } = await adapter.create(orderRequest({ shipmentId }));
    simulatorB.advance(trackingCode, 12);
    simulatorB.advance(trackingCode, 123);
    simulatorB.advance(trackingCode, 3);
    simulatorB.advance(trackingCode, 4);
    const { returnLeg } = simulatorB.partialDelivery(trackingCode, {
      collectedMoney: 300_000,
      returnedProducts: [{ name: 'Quần jean', quantity: 1 }],
    });
    simulatorB.advance(returnLeg.code, 21);
    simulatorB.advance(returnLeg.code, 11);

    const milestones = await milestonesAt(path, 8, parseCarrierBCallback);
    expect(milestones.map((m) => [m.trackingCode, m.leg, m.carrierStatus, m.status])).toEqual([
      [trackingCode, 'outbound', '12', 'pending'],
      [trackingCode, 'outbound', '123', null],
      [trackingCode, 'outbound', '3', 'delivering'],
      [trackingCode, 'outbound', '4', 'delivering'],
      [trackingCode, 'outbound', '5', 'partially_returned'],
      [returnLeg.code, 'return', '20', null],
      [returnLeg.code, 'return', '21', null],
      [returnLeg.code, 'return', '11', null],
    ]);
    for (const milestone of milestones) expect(milestone.shipmentId).toBe(shipmentId);
    expect(milestones[4]!.reason).toContain(returnLeg.code);
    expect(milestones[4]!.occurredAt).toMatch(/Z$/);
    expect(milestones.slice(5).map((m) => m.feeTotal)).toEqual([null, null, null]);

    // The status endpoint agrees: the outbound leg ended partially_returned and names the return label.
    expect(await adapter.status(trackingCode)).toMatchObject({
      carrierStatus: '5',
      status: 'partially_returned',
      returnTrackingCode: returnLeg.code,
    });
  });

  it('keeps an ordinary return on the outbound label as returning, then returned', () => {
    const body = { partner_id: randomUUID(), label_id: 'S1.A1.1', action_time: '2026-11-22T10:00:00+07:00', return_part_package: 0 };
    expect(parseCarrierBCallback({ ...body, status_id: 20 })).toMatchObject({
      leg: 'outbound',
      status: 'returning',
      occurredAt: '2026-11-22T03:00:00.000Z',
    });
    expect(parseCarrierBCallback({ ...body, status_id: 21 })).toMatchObject({ leg: 'outbound', status: 'returned' });
    expect(() => parseCarrierBCallback({ ...body, status_id: 'three' })).toThrow(InvalidCarrierCallback);
  });
});
