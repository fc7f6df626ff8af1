import type { KeyObject } from 'node:crypto';
import { Decimal } from 'decimal.js';
import { writeShopLog } from '../access/index.js';
import { variantFacts } from '../catalog/index.js';
import { allAnswered, Problem } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';
import {
  connectionForPush,
  hasLiveShipment,
  recordAcceptedShipment,
  recordCancelled,
  recordMilestone,
  startShipment,
  type Carrier,
  type CarrierMilestone,
  type CarrierOrder,
  type CarrierOrderRequest,
  type CarrierRecipient,
  type OpenedCarrierConnection,
  type PushRequest,
  type ShipmentDetail,
  type ShipmentState,
} from '../shipments/index.js';
import { lockedOrder, type OrderDetail } from './order-detail.js';
import { changeOrderStatus, shipGoodsBack, trialMove } from './order-lifecycle.js';
import { shopStatusMatrix, type OrderStatus } from './order-status.js';
import { stockedLinesOf } from './order-stock.js';

/**
 * An order's side of its shipments: what may be pushed and what the carrier is sent, and how the
 * order follows its shipment (shipped when the carrier accepts, delivered or returned as it reports,
 * back to `ready_to_ship` when cancelled before pick-up). docs/decisions/0117 to 0124, Shipments.
 */

export interface ShipmentActor {
  shopId: string;
  permissions: readonly string[];
  applicationId: string | null;
}

/** Declared when the request names no weight and the catalog knows none of the goods' weights. */
export const DEFAULT_WEIGHT_GRAM = 1_000;

/**
 * `POST /shipments`, before the carrier is called: every refusal that needs no carrier (404 order or
 * connection, 422 a state that cannot ship under the shop's matrix, 409 a live shipment or an
 * address carriers cannot take, 422 short stock), then the shipment row and the carrier's request,
 * and the connection opened with `secretsKey` (the request hands it to the run it starts: docs/behaviour/shipments.md).
 */
export async function prepareShipmentPush(
  tx: Tx,
  actor: ShipmentActor,
  input: PushRequest,
  secretsKey: KeyObject,
): Promise<{ shipmentId: string; orderCode: string; carrier: Carrier; request: CarrierOrderRequest; connection: OpenedCarrierConnection }> {
  // The goods are read in the lock's round trip: after it, on the same connection.
  const [order, matrix, lines] = await Promise.all([
    lockedOrder(tx, input.orderId),
    shopStatusMatrix(tx),
    stockedLinesOf(tx, input.orderId),
  ]);
  // What needs only the order goes out together, one round trip: the reads, and the trial of the
  // move to `shipped` (the shop's matrix and the stock must allow it now). Refusals come in the order
  // they had when each waited for the last, once every part has finished.
  const live = hasLiveShipment(tx, order.id).then((isLive) => {
    if (isLive) throw new Problem('conflict', `order ${order.code} already has a shipment that has not ended`);
  });
  const [, , connection, weightRead] = await allAnswered([
    live,
    trialMove(tx, actor, order, 'shipped', { matrix, lines }),
    connectionForPush(tx, input.connectionId, secretsKey),
    input.weightGram ?? catalogWeight(tx, order),
  ]);
  const recipient = recipientOf(order);
  const weightGram = weightRead ?? DEFAULT_WEIGHT_GRAM;
  // Still to collect: credit from another order's return is already settled (spec, Order `creditApplied`).
  const owed = new Decimal(order.totalAmount).minus(order.paidAmount).minus(order.creditApplied);
  const codAmount = input.codAmount ?? Decimal.max(0, owed).toFixed();
  const shipmentId = await startShipment(tx, actor.shopId, {
    orderId: order.id,
    orderCode: order.code,
    connectionId: connection.id,
    carrier: connection.carrier,
    weightGram,
    codAmount,
    note: input.note ?? null,
    recipient,
  });
  return {
    shipmentId,
    orderCode: order.code,
    carrier: connection.carrier,
    connection,
    request: {
      shipmentId,
      recipient,
      pickUp: connection.pickUp,
      weightGram,
      codAmount,
      declaredValue: order.totalPrice,
      note: input.note ?? null,
      items: order.lines.map((line) => ({
        name: [line.productName, line.variantName].filter(Boolean).join(' – ') || line.variantCode || 'Hàng hoá',
        // Carriers count pieces: a fractional quantity (by weight or length) is one piece more.
        quantity: Math.max(1, Math.ceil(Number(line.quantity))),
        price: line.unitPrice,
      })),
    },
  };
}

/**
 * The recipient as carriers take it. Unit ids of the `new` system (or, without ids, an address with
 * no district) follow the layout of 1 July 2025, province and ward, which both carriers take without
 * a district; the rest is the old layout, province, district and ward. 409 `conflict` names what is
 * missing for the layout.
 */
function recipientOf(order: OrderDetail): CarrierRecipient {
  const address = order.shippingAddress;
  const system = address?.geoSystem ?? (address?.districtName ? 'old' : 'new');
  const units = system === 'new' ? (['wardName', 'provinceName'] as const) : (['districtName', 'provinceName'] as const);
  const missing = (['recipientName', 'recipientPhone', 'addressLine', ...units] as const).filter((field) => !address?.[field]);
  if (!address || missing.length > 0)
    throw new Problem(
      'conflict',
      `order ${order.code} cannot be pushed: its shipping address lacks ${missing.join(', ')} (carriers need a name, a phone, a street, and a ward and a province, or with the old layout a district and a province)`,
    );
  return {
    system,
    name: address.recipientName!,
    phone: address.recipientPhone!,
    street: address.addressLine!,
    ward: address.wardName,
    // The new layout has no district: a text one left on the address is not sent.
    district: system === 'new' ? null : address.districtName!,
    province: address.provinceName!,
  };
}

/** The goods' weight from the catalog (grams × quantity), or undefined when it knows none of them. */
async function catalogWeight(tx: Tx, order: OrderDetail): Promise<number | undefined> {
  const [row] = await tx<{ grams: string | null }[]>`
    select sum(v.weight_grams * l.quantity)::text as grams
    from order_lines l join ${variantFacts(tx)} v on v.id = l.variant_id
    where l.order_id = ${order.id} and v.weight_grams is not null`;
  if (!row?.grams) return undefined;
  return Math.min(50_000, Math.max(1, Math.ceil(Number(row.grams))));
}

/**
 * The carrier accepted: the shipment gets its tracking code and `shipment.created`, and the order
 * moves to `shipped` with its goods out of stock. A move the order can no longer make (it changed
 * during the push) leaves the order as it is and says why in the shop log: the parcel exists.
 */
export async function recordShipmentPushed(
  tx: Tx,
  actor: ShipmentActor,
  shipmentId: string,
  carrierOrder: CarrierOrder,
): Promise<ShipmentDetail | undefined> {
  return recordAcceptedShipment(tx, actor.shopId, shipmentId, carrierOrder, (detail) => followShipment(tx, actor, detail, ['shipped']));
}

/** Where the order goes when its shipment reaches a state (each step through the shop's matrix). */
const ORDER_STEPS: Partial<Record<ShipmentState, OrderStatus[]>> = {
  delivered: ['delivered'],
  returning: ['returning'],
  returned: ['returning', 'returned'],
  partially_returned: ['delivered', 'partially_returned'],
};

/** A carrier milestone: the shipment's itinerary and state, and the order following its shipment's state. */
export async function recordShipmentMilestone(
  tx: Tx,
  shopId: string,
  shipmentId: string,
  milestone: CarrierMilestone,
): Promise<{ trackingOver: boolean; statusReached: ShipmentState | null } | undefined> {
  const outcome = await recordMilestone(tx, shopId, shipmentId, milestone);
  if (!outcome) return undefined;
  const steps = outcome.statusChange ? ORDER_STEPS[outcome.statusChange.to] : undefined;
  if (steps) {
    const order = await lockedOrder(tx, outcome.orderId);
    const detail = { id: shipmentId, trackingCode: milestone.trackingCode, orderId: order.id };
    await followShipment(tx, { shopId, permissions: [], applicationId: null }, detail, steps.slice(steps.indexOf(order.status) + 1));
  }
  return { trackingOver: outcome.trackingOver, statusReached: outcome.statusChange?.to ?? null };
}

/** The carrier confirmed a cancel: the shipment is `cancelled`, and an order still `shipped` goes back to `ready_to_ship`. */
export async function recordShipmentCancelled(
  tx: Tx,
  actor: ShipmentActor,
  shipmentId: string,
  reason: string | null,
): Promise<ShipmentDetail> {
  const result = await recordCancelled(tx, actor.shopId, shipmentId, { reason, applicationId: actor.applicationId });
  if (result.cancelled) await shipGoodsBack(tx, actor, result.orderId, `shipment ${result.detail.trackingCode ?? shipmentId} cancelled`);
  return result.detail;
}

/** Moves the order through `steps` in order; the first step the shop's matrix or stock refuses stops it, noted in the shop log. */
async function followShipment(
  tx: Tx,
  actor: ShipmentActor,
  shipment: Pick<ShipmentDetail, 'id' | 'trackingCode' | 'orderId'>,
  steps: readonly OrderStatus[],
): Promise<void> {
  for (const status of steps) {
    const reason = `shipment ${shipment.trackingCode ?? shipment.id}`;
    try {
      // A refusal undoes only its own step: the shipment's record stands.
      await tx.savepoint((inner) => changeOrderStatus(inner, actor, shipment.orderId, { status, reason }));
    } catch (error) {
      if (!(error instanceof Problem)) throw error;
      await writeShopLog(tx, {
        shopId: actor.shopId,
        actorUserId: null,
        actorApplicationId: actor.applicationId,
        action: 'shipment.order_not_moved',
        subjectType: 'order',
        subjectId: shipment.orderId,
        details: { shipmentId: shipment.id, to: status, reason: error.detail },
      });
      return;
    }
  }
}
