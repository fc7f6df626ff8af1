import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import {
  connectCarrier,
  recordAcceptedShipment,
  startShipment,
  type CarrierOrder,
  type ShipmentDetail,
} from '../../domain/shipments/index.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';
import { useSuite } from '../support/suite.js';
import { pickUpAddress } from './carrier-order-request.js';
import { testConnectionKeys } from '../support/carriers.js';

/** The record of a carrier's acceptance: written once, whatever order the carrier's reports and our retries come in. */
const { db, shop } = useSuite({ shop: true });

const inTheShop = <T>(work: (tx: Tx) => Promise<T>) => withShop(db.app, shop.shopId, work);

/** A pushed shipment the carrier has not yet answered for: its row, without a tracking code. */
async function shipmentInFlight(): Promise<string> {
  return inTheShop(async (tx) => {
    const warehouseId = await addWarehouse(tx, shop.shopId);
    const connection = {
      carrier: 'carrier_b' as const,
      name: 'GHTK',
      credentials: { token: 't', clientSource: 'S1' },
      warehouseId,
      baseUrl: 'http://127.0.0.1:9',
      pickUp: pickUpAddress,
    };
    const { connectionId } = await connectCarrier(tx, shop.shopId, connection, testConnectionKeys);
    const orderCode = `DH${randomUUID().slice(0, 8)}`;
    const [order] = await tx<{ id: string }[]>`
      insert into orders (shop_id, code, warehouse_id) values (${shop.shopId}, ${orderCode}, ${warehouseId}) returning id`;
    return startShipment(tx, shop.shopId, {
      orderId: order!.id,
      orderCode,
      connectionId,
      carrier: 'carrier_b',
      weightGram: 500,
      codAmount: '0',
      note: null,
      recipient: pickUpAddress,
    });
  });
}

const accepted = (shipmentId: string, trackingCode: string): CarrierOrder => ({
  trackingCode,
  shipmentId,
  feeTotal: '35000',
  expectedDeliveryAt: null,
  carrierStatus: '2',
  status: 'pending',
  returnTrackingCode: null,
});

const noFollowUp = async () => {};
const createdEvents = async (shipmentId: string) =>
  (await db.admin`select 1 from events where type = 'shipment.created' and resource_id = ${shipmentId}`).length;

describe('recording a carrier’s acceptance', () => {
  it('writes the code, its acceptance step (no status change: null) and shipment.created once, and follows up once; a second recording changes nothing', async () => {
    const shipmentId = await shipmentInFlight();
    const followedUp: (string | null)[] = [];
    const followUp = async (detail: ShipmentDetail) => void followedUp.push(detail.trackingCode);
    const first = await inTheShop((tx) => recordAcceptedShipment(tx, shop.shopId, shipmentId, accepted(shipmentId, 'S1.A1.1'), followUp));
    expect(first).toMatchObject({ trackingCode: 'S1.A1.1', status: 'pending' });
    expect(first!.events).toEqual([expect.objectContaining({ status: null, carrierStatus: '2', description: 'Accepted by the carrier' })]);
    // A retried record, even with another answer: the first acceptance stands, and nothing follows again.
    const again = await inTheShop((tx) => recordAcceptedShipment(tx, shop.shopId, shipmentId, accepted(shipmentId, 'S1.A1.2'), followUp));
    expect(again).toEqual(first);
    expect(await createdEvents(shipmentId)).toBe(1);
    expect(followedUp).toEqual(['S1.A1.1']);
  });

  it('keeps the carrier’s own report of the creation, come first, as the acceptance step instead of adding one', async () => {
    const shipmentId = await shipmentInFlight();
    await db.admin`insert into shipment_events (shop_id, shipment_id, status, carrier_status, occurred_at, description)
      values (${shop.shopId}, ${shipmentId}, null, '2', now() - interval '1 minute', 'Đã tiếp nhận')`;
    const recorded = await inTheShop((tx) =>
      recordAcceptedShipment(tx, shop.shopId, shipmentId, accepted(shipmentId, 'S1.A1.3'), noFollowUp),
    );
    expect(recorded!.events).toEqual([expect.objectContaining({ status: null, carrierStatus: '2', description: 'Đã tiếp nhận' })]);
  });

  it('records nothing for a shipment that is gone', async () => {
    const shipmentId = await shipmentInFlight();
    await db.admin`delete from shipments where id = ${shipmentId}`;
    expect(
      await inTheShop((tx) => recordAcceptedShipment(tx, shop.shopId, shipmentId, accepted(shipmentId, 'S1.A1.4'), noFollowUp)),
    ).toBeUndefined();
    expect(await createdEvents(shipmentId)).toBe(0);
  });
});
