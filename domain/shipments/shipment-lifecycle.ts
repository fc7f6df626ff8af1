import { writeShopLog } from '../access/index.js';
import { diffSnapshots, writeEvent } from '../events/index.js';
import { allAnswered, Problem } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';
import type { Carrier } from './carrier-connection-input.js';
import type { CarrierRecipient } from './carrier-address.js';
import type { CarrierMilestone, CarrierOrder } from './carrier-order-shapes.js';
import { shipmentDetail } from './shipment-reads.js';
import { finalShipmentStates, type ShipmentDetail, type ShipmentState } from './shipment-shapes.js';

/**
 * A shipment's life in the database: the row made before the push, the carrier's acceptance (or
 * rejection), each milestone of its itinerary, and a cancel. Each write emits its `shipment.*`
 * event in the same transaction. Order effects are the orders module's (it calls these).
 */

export interface NewShipment {
  orderId: string;
  orderCode: string;
  connectionId: string;
  carrier: Carrier;
  weightGram: number;
  codAmount: string;
  note: string | null;
  recipient: CarrierRecipient;
}

/** The row a push starts from: `pending` with no tracking code (spec: empty until pushed). */
export async function startShipment(tx: Tx, shopId: string, input: NewShipment): Promise<string> {
  const address = [input.recipient.street, input.recipient.ward, input.recipient.district, input.recipient.province].filter(Boolean);
  const [row] = await tx<{ id: string }[]>`
    insert into shipments (shop_id, order_id, order_code, connection_id, carrier, status, cod_amount, weight_gram,
      recipient_name, recipient_phone, recipient_address, note)
    values (${shopId}, ${input.orderId}, ${input.orderCode}, ${input.connectionId}, ${input.carrier}, 'pending', ${input.codAmount},
      ${input.weightGram}, ${input.recipient.name}, ${input.recipient.phone}, ${address.join(', ')}, ${input.note})
    returning id`;
  return row!.id;
}

async function detailOf(tx: Tx, id: string): Promise<ShipmentDetail> {
  const detail = await shipmentDetail(tx, id);
  if (!detail) throw new Problem('not-found', `no shipment ${id}`);
  return detail;
}

/**
 * The carrier accepted: its tracking code, fee and promise, the first milestone, and
 * `shipment.created`. Undefined when the row is gone. Again for the same shipment (a retried
 * activity): the stored detail, nothing written twice. `followUp` runs once, when this call recorded
 * the acceptance, its first statements sent in the event's round trip.
 */
export async function recordAcceptedShipment(
  tx: Tx,
  shopId: string,
  id: string,
  order: CarrierOrder,
  followUp: (detail: ShipmentDetail) => Promise<void>,
): Promise<ShipmentDetail | undefined> {
  // One statement, the detail read in its round trip. The acceptance is written once: a second
  // recording (a retried activity) finds the code set, and waits on the first's row lock until then.
  // Its step changes no status (the shipment is pending from the push on), so its `status` is null
  // (spec, shipment detail `events`). The carrier's own report of the creation may have come first (a
  // callback racing the answer): that step stands for it. Our own steps are timed to the second, as
  // carriers report theirs (GHTK's `action_time`): a carrier step of the same second is not older.
  const acceptance = tx<{ accepted: boolean }[]>`
    with accepted as (
      update shipments set tracking_code = ${order.trackingCode}, fee_total = ${order.feeTotal}, expected_delivery_at = ${order.expectedDeliveryAt},
        carrier_status = ${order.carrierStatus}, updated_at = clock_timestamp()
      where id = ${id} and tracking_code is null
      returning id),
    step as (
      insert into shipment_events (shop_id, shipment_id, status, carrier_status, occurred_at, description)
      select ${shopId}, ${id}, null, ${order.carrierStatus}, date_trunc('second', clock_timestamp()), 'Accepted by the carrier'
      where exists (select from accepted) and not exists (
        select from shipment_events where shipment_id = ${id} and leg = 'outbound' and carrier_status = ${order.carrierStatus}))
    select exists (select from accepted) as accepted`;
  const [[written], detail] = await allAnswered([acceptance.execute(), shipmentDetail(tx, id)] as const);
  if (!written?.accepted || !detail) return detail;
  await allAnswered([writeEvent(tx, { shopId, type: 'shipment.created', resourceId: id, data: detail }), followUp(detail)]);
  return detail;
}

/** The carrier refused the content: the row goes (spec: a shipment rejected at creation is deleted, never listed). */
export async function dropRejectedShipment(tx: Tx, id: string): Promise<void> {
  await tx`delete from shipments where id = ${id} and tracking_code is null`;
}

export interface MilestoneOutcome {
  orderId: string;
  /** Whether the itinerary gained a step (false: a repeat, or nothing new). */
  recorded: boolean;
  statusChange: { from: ShipmentState; to: ShipmentState } | null;
  /** Nothing more will change: the shipment ended, and a partial delivery's return leg too. */
  trackingOver: boolean;
}

interface LockedShipment {
  status: ShipmentState;
  ended: boolean;
  orderId: string;
  returnLegEnded: boolean;
}

async function lockShipment(tx: Tx, id: string): Promise<LockedShipment | undefined> {
  const [row] = await tx<LockedShipment[]>`select status, ended, order_id, return_leg_ended from shipments where id = ${id} for update`;
  return row;
}

function trackingOver(shipment: Pick<LockedShipment, 'status' | 'ended' | 'returnLegEnded'>): boolean {
  return shipment.ended && (shipment.status !== 'partially_returned' || shipment.returnLegEnded);
}

/**
 * One milestone from the carrier (a callback or a poll), applied at most once:
 * - a repeat (the leg's latest step has the same code, or the same step at the same time) is dropped,
 *   and so is a poll that tells no new state;
 * - an ended shipment restating its state adds nothing;
 * - the outbound leg changes the state only when the milestone is the newest that tells a state
 *   (a late, older callback is kept in the itinerary and changes nothing) and the shipment has not
 *   ended; that emits `shipment.status_changed` with `changes.status`;
 * - each new step of the return leg emits it with `changes.fields = ["events"]` (spec);
 * - any other step is kept in the itinerary and emits nothing (spec, Events rule 3).
 */
export async function recordMilestone(
  tx: Tx,
  shopId: string,
  id: string,
  milestone: CarrierMilestone,
): Promise<MilestoneOutcome | undefined> {
  const shipment = await lockShipment(tx, id);
  if (!shipment) return undefined;
  const unchanged = { orderId: shipment.orderId, recorded: false, statusChange: null, trackingOver: trackingOver(shipment) };
  const [latest] = await tx<{ carrierStatus: string | null }[]>`
    select carrier_status from shipment_events where shipment_id = ${id} and leg = ${milestone.leg}
    order by occurred_at desc, recorded_at desc limit 1`;
  if (latest?.carrierStatus === milestone.carrierStatus) return unchanged;
  if (shipment.ended && milestone.status === shipment.status) return unchanged;

  const [newer] = await tx`
    select 1 from shipment_events
    where shipment_id = ${id} and leg = 'outbound' and status is not null and occurred_at > ${milestone.occurredAt}
    limit 1`;
  const to =
    milestone.leg === 'outbound' && milestone.status !== null && milestone.status !== shipment.status && !shipment.ended && !newer
      ? milestone.status
      : null;
  // A poll is the safety net for lost callbacks: worth a step only when it tells a state we missed.
  if (milestone.polled && !to) return unchanged;
  const before = await detailOf(tx, id);
  const [inserted] = await tx`
    insert into shipment_events (shop_id, shipment_id, leg, status, carrier_status, occurred_at, location, description, reason)
    values (${shopId}, ${id}, ${milestone.leg}, ${to}, ${milestone.carrierStatus}, ${milestone.occurredAt}, ${milestone.location},
      ${milestone.description}, ${milestone.reason})
    on conflict (shipment_id, leg, carrier_status, occurred_at) do nothing
    returning id`;
  if (!inserted) return unchanged;

  if (to) {
    await tx`
      update shipments set status = ${to}, carrier_status = ${milestone.carrierStatus},
        fee_total = coalesce(${milestone.feeTotal}::numeric, fee_total),
        fail_reason = case when ${to} in ('delivery_failed', 'exception', 'lost', 'damaged', 'returning') then ${milestone.reason} else fail_reason end,
        picked_up_at = case when status = 'pending' and ${to} <> 'cancelled' then coalesce(picked_up_at, ${milestone.occurredAt}::timestamptz) else picked_up_at end,
        updated_at = clock_timestamp()
      where id = ${id}`;
  } else {
    await tx`
      update shipments set fee_total = coalesce(${milestone.feeTotal}::numeric, fee_total),
        return_leg_ended = return_leg_ended or ${milestone.endsReturnLeg},
        -- The return leg's own label (carrier B's partial delivery): its later callbacks name it.
        return_tracking_code = case when ${milestone.leg} = 'return' then ${milestone.trackingCode} else return_tracking_code end,
        updated_at = clock_timestamp()
      where id = ${id}`;
  }
  const after = await detailOf(tx, id);
  const changes = diffSnapshots(before, after);
  if (to || (milestone.leg === 'return' && changes))
    await writeEvent(tx, { shopId, type: 'shipment.status_changed', resourceId: id, data: after, changes: changes! });
  const status = to ?? shipment.status;
  return {
    orderId: shipment.orderId,
    recorded: true,
    statusChange: to ? { from: shipment.status, to } : null,
    trackingOver: trackingOver({
      status,
      ended: finalShipmentStates.includes(status),
      returnLegEnded: shipment.returnLegEnded || milestone.endsReturnLeg,
    }),
  };
}

/** What the tracking workflow needs to poll the carrier. */
export interface TrackedShipment {
  connectionId: string;
  carrier: Carrier;
  trackingCode: string | null;
  returnTrackingCode: string | null;
  trackingOver: boolean;
}

export async function trackedShipment(tx: Tx, id: string): Promise<TrackedShipment | undefined> {
  const [row] = await tx<(Omit<TrackedShipment, 'trackingOver'> & LockedShipment)[]>`
    select connection_id, carrier, tracking_code, return_tracking_code, status, ended, order_id, return_leg_ended from shipments where id = ${id}`;
  if (!row) return undefined;
  return {
    connectionId: row.connectionId,
    carrier: row.carrier,
    trackingCode: row.trackingCode,
    returnTrackingCode: row.returnTrackingCode,
    trackingOver: trackingOver(row),
  };
}

/** A callback names a shipment by our id (client order code / partner id) or by a tracking code of the connection. */
export async function shipmentOfCallback(
  tx: Tx,
  connectionId: string,
  milestone: CarrierMilestone,
): Promise<{ id: string; orderId: string; orderCode: string } | undefined> {
  const [row] = await tx<{ id: string; orderId: string; orderCode: string }[]>`
    select id, order_id, order_code from shipments
    where connection_id = ${connectionId}
      and (id::text = ${milestone.shipmentId ?? ''} or tracking_code = ${milestone.trackingCode} or return_tracking_code = ${milestone.trackingCode})
    limit 1`;
  return row;
}

/**
 * A cancel request: which one it is (the n of `shipment-cancel:<id>:<n>`) and what to cancel at the
 * carrier. 409 `shipment-not-cancellable` once ended. While the push is still open (no tracking code:
 * the carrier has not answered it yet) 503 `carrier-unavailable`, the spec's "cancellation not
 * completed" for a wait on the carrier: it is not final, a retry once the carrier answers can cancel.
 */
export async function requestCancel(
  tx: Tx,
  id: string,
): Promise<{ request: number; connectionId: string; carrier: Carrier; trackingCode: string; orderId: string; orderCode: string }> {
  const [row] = await tx<
    { status: ShipmentState; ended: boolean; trackingCode: string | null; connectionId: string; carrier: Carrier; orderCode: string }[]
  >`select status, ended, tracking_code, connection_id, carrier, order_code from shipments where id = ${id} for update`;
  if (!row) throw new Problem('not-found', `no shipment ${id}`);
  if (row.ended) throw new Problem('shipment-not-cancellable', `the shipment is ${row.status}: it can no longer be cancelled`);
  if (row.trackingCode === null)
    throw new Problem(
      'carrier-unavailable',
      `the shipment is still being pushed to the carrier, which has not answered yet: there is nothing to cancel there until it does; read GET /shipments/${id} and cancel again once it has a tracking code`,
    );
  const [counted] = await tx<{ request: number; orderId: string }[]>`
    update shipments set cancel_requests = cancel_requests + 1 where id = ${id} returning cancel_requests as request, order_id`;
  return { ...counted!, connectionId: row.connectionId, carrier: row.carrier, trackingCode: row.trackingCode, orderCode: row.orderCode };
}

/**
 * The carrier confirmed a cancel: `cancelled` with the reason in the itinerary and the shop log,
 * `shipment.status_changed`. When the carrier's cancel callback was recorded first, its step takes
 * the shop's reason. Any other ended shipment is left as it is (false).
 */
export async function recordCancelled(
  tx: Tx,
  shopId: string,
  id: string,
  cancel: { reason: string | null; applicationId: string | null },
): Promise<{ cancelled: boolean; detail: ShipmentDetail; orderId: string }> {
  const shipment = await lockShipment(tx, id);
  if (!shipment) throw new Problem('not-found', `no shipment ${id}`);
  if (shipment.ended && shipment.status !== 'cancelled')
    return { cancelled: false, detail: await detailOf(tx, id), orderId: shipment.orderId };
  if (shipment.ended) {
    // The carrier's own report of the cancel got here first: its step is the shop's cancel.
    await tx`
      update shipment_events set description = 'Cancelled by the shop', reason = coalesce(${cancel.reason}, reason)
      where id = (select id from shipment_events where shipment_id = ${id} and status = 'cancelled' order by occurred_at desc, recorded_at desc limit 1)`;
  } else {
    const before = await detailOf(tx, id);
    await tx`update shipments set status = 'cancelled', updated_at = clock_timestamp() where id = ${id}`;
    await tx`
      insert into shipment_events (shop_id, shipment_id, status, occurred_at, description, reason)
      values (${shopId}, ${id}, 'cancelled', date_trunc('second', clock_timestamp()), 'Cancelled by the shop', ${cancel.reason})`;
    const after = await detailOf(tx, id);
    await writeEvent(tx, { shopId, type: 'shipment.status_changed', resourceId: id, data: after, changes: diffSnapshots(before, after)! });
  }
  await writeShopLog(tx, {
    shopId,
    actorUserId: null,
    actorApplicationId: cancel.applicationId,
    action: 'shipment.cancelled',
    subjectType: 'shipment',
    subjectId: id,
    details: { reason: cancel.reason },
  });
  return { cancelled: true, detail: await detailOf(tx, id), orderId: shipment.orderId };
}
