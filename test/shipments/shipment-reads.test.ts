import { describe, expect, it } from 'vitest';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import { connectCarrier } from '../../domain/shipments/carrier-connections.js';
import { shipmentDetail, shipmentListRow } from '../../domain/shipments/shipment-reads.js';
import { shipmentDetailSchema, shipmentListRowSchema } from '../../domain/shipments/shipment-shapes.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { pickUpAddress } from './carrier-order-request.js';
import { testConnectionKeys } from '../support/carriers.js';

const { db, shop } = useSuite({ shop: true });

const inTheShop = <T>(work: (tx: Tx) => Promise<T>, shopId = shop.shopId) => withShop(db.app, shopId, work);

/** A pushed shipment with two milestones, written as the tracking will write them. */
async function storedShipment(orderCode: string): Promise<{ shipmentId: string; orderId: string }> {
  return inTheShop(async (tx) => {
    const warehouseId = await addWarehouse(tx, shop.shopId);
    const { connectionId } = await connectCarrier(
      tx,
      shop.shopId,
      {
        carrier: 'carrier_b',
        name: 'GHTK',
        credentials: { token: 't', clientSource: 'S1' },
        warehouseId,
        baseUrl: 'http://127.0.0.1:3602',
        pickUp: pickUpAddress,
      },
      testConnectionKeys,
    );
    const [order] = await tx<
      { id: string }[]
    >`insert into orders (shop_id, code, warehouse_id) values (${shop.shopId}, ${orderCode}, ${warehouseId}) returning id`;
    const [shipment] = await tx<{ id: string }[]>`
      insert into shipments (shop_id, order_id, connection_id, carrier, tracking_code, status, order_code, carrier_status, cod_amount, fee_total,
        weight_gram, recipient_name, recipient_phone, recipient_address, expected_delivery_at, picked_up_at, created_at, updated_at)
      values (${shop.shopId}, ${order!.id}, ${connectionId}, 'carrier_b', 'S1.A2.123456789', 'delivering', ${orderCode}, '3', 700000, 35000.000,
        1500, 'Trần Thị B', '+84912345678', '123 Nguyễn Chí Thanh, Hà Nội', '2026-11-25T11:00:00Z', '2026-11-23T02:00:00Z', '2026-11-22T10:00:00Z', '2026-11-23T02:00:00Z')
      returning id`;
    // Recorded out of time order: the itinerary is in the order things happened.
    await tx`insert into shipment_events (shop_id, shipment_id, status, carrier_status, occurred_at, reason)
      values (${shop.shopId}, ${shipment!.id}, 'delivering', '3', '2026-11-23T02:00:00Z', null),
             (${shop.shopId}, ${shipment!.id}, 'pending', '2', '2026-11-22T10:00:00Z', null),
             (${shop.shopId}, ${shipment!.id}, null, '123', '2026-11-23T01:30:00Z', 'Shipper báo đã lấy hàng')`;
    return { shipmentId: shipment!.id, orderId: order!.id };
  });
}

describe('stored shipments in the spec shapes', () => {
  it('maps a row to the list row and the detail with its itinerary in time order', async () => {
    const { shipmentId, orderId } = await storedShipment('DH000777');
    const row = await inTheShop((tx) => shipmentListRow(tx, shipmentId));
    expect(row).toEqual({
      id: shipmentId,
      carrier: 'carrier_b',
      trackingCode: 'S1.A2.123456789',
      status: 'delivering',
      orderId,
      orderCode: 'DH000777',
      codAmount: '700000',
      feeTotal: '35000',
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-23T02:00:00.000Z',
      expectedDeliveryAt: '2026-11-25T11:00:00.000Z',
      failReason: null,
    });
    expect(shipmentListRowSchema.parse(row)).toEqual(row);

    const detail = await inTheShop((tx) => shipmentDetail(tx, shipmentId));
    expect(shipmentDetailSchema.parse(detail)).toEqual(detail);
    expect(detail).toMatchObject({ ...row, recipientName: 'Trần Thị B', weightGram: 1500, pickedUpAt: '2026-11-23T02:00:00.000Z' });
    expect(detail!.events.map((event) => [event.carrierStatus, event.status, event.reason])).toEqual([
      ['2', 'pending', null],
      ['123', null, 'Shipper báo đã lấy hàng'],
      ['3', 'delivering', null],
    ]);
  });

  it('shows nothing of another shop', async () => {
    const { shipmentId } = await storedShipment('DH000778');
    const other = await createShopFixture(db.app);
    expect(await inTheShop((tx) => shipmentDetail(tx, shipmentId), other.shopId)).toBeUndefined();
    expect(await db.admin`select 1 from shipment_events where shipment_id = ${shipmentId}`).toHaveLength(3);
    expect(await inTheShop((tx) => tx`select 1 from shipment_events where shipment_id = ${shipmentId}`, other.shopId)).toHaveLength(0);
  });
});
