import type { Answer } from '../shared/http.js';
import type { StatusStep } from '../shared/order-book.js';
import type { CarrierDialect } from '../shared/simulator.js';
import { carrierBStatusText, type CarrierBStatusId } from './statuses.js';
import type { CarrierBOrder } from './store.js';
import { vnDateTime, vnIsoTime } from './time.js';

/**
 * GHTK answers refusals of a well-formed request (duplicate id, unserved address, an order it
 * cannot cancel) with HTTP 200 and `success: false`; an adapter reads `success`, not the status.
 */
export function failure(message: string, status = 200, error?: Record<string, unknown>): Answer {
  return { status, body: { success: false, message, ...(error ? { error } : {}) } };
}

export function success(fields: Record<string, unknown>): Answer {
  return { status: 200, body: { success: true, message: '', ...fields } };
}

export const carrierBDialect: CarrierDialect = {
  error: (status, message) => failure(message, status),
  unavailable: failure('Service temporarily unavailable, please retry later', 503),
  tooManyRequests: failure('Too many requests: the shop is over its requests-per-second limit', 429),
};

/** `order` of a create answer. */
export function createdOrder(order: CarrierBOrder) {
  return {
    partner_id: order.partnerId,
    label: order.code,
    area: order.area,
    fee: order.fee,
    insurance_fee: order.insuranceFee,
    estimated_pick_time: order.estimatedPick,
    estimated_deliver_time: order.estimatedDeliver,
    products: [],
    status_id: order.status,
  };
}

/** The `error` of `ORDER_ID_EXIST`: enough for an adapter to adopt the order it already made. */
export function existingOrderError(order: CarrierBOrder) {
  return {
    code: 'ORDER_ID_EXIST',
    partner_id: order.partnerId,
    ghtk_label: order.code,
    created: vnDateTime(order.createdAt),
    status: order.status,
  };
}

/** `order` of `GET /services/shipment/v2/{label}`. */
export function statusView(order: CarrierBOrder) {
  const reached = (status: CarrierBStatusId) => order.history.find((step) => step.status === status)?.at;
  const pickedAt = reached(3);
  const deliveredAt = reached(5);
  return {
    label_id: order.code,
    partner_id: order.partnerId,
    status: order.status,
    status_text: carrierBStatusText.get(order.status),
    created: vnDateTime(order.createdAt),
    modified: vnDateTime(order.updatedAt),
    message: order.note,
    pick_date: pickedAt ? vnDateTime(pickedAt).slice(0, 10) : null,
    deliver_date: deliveredAt ? vnDateTime(deliveredAt).slice(0, 10) : null,
    customer_fullname: order.recipient.name,
    customer_tel: order.recipient.tel,
    address: order.recipient.address,
    storage_day: 0,
    ship_money: order.fee,
    insurance: order.insuranceFee,
    value: order.value,
    weight: order.weightKg,
    pick_money: order.pickMoney,
    is_freeship: order.isFreeship,
    products: order.products,
    return_part_package: order.returnPartPackage ? 1 : 0,
    /** Simulator additions: the two legs of a partial delivery name each other. */
    return_label: order.returnLabel,
    parent_label: order.parentLabel,
  };
}

/** GHTK's callback body, POSTed as JSON to the URL the partner registered. */
export function callbackPayload(order: CarrierBOrder, step: StatusStep<CarrierBStatusId>) {
  return {
    partner_id: order.partnerId,
    label_id: order.code,
    status_id: step.status,
    action_time: vnIsoTime(step.at),
    reason_code: step.reasonCode ?? '',
    reason: step.reason ?? '',
    weight: order.weightKg,
    fee: order.fee,
    pick_money: order.pickMoney,
    return_part_package: order.returnPartPackage ? 1 : 0,
  };
}
