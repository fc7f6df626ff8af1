import { z } from 'zod';
import type { CarrierBCredentials } from '../../domain/shipments/index.js';
import {
  CARRIER_CALL_TIMEOUT_MS,
  CarrierError,
  InvalidCarrierCallback,
  wholeDong,
  type CarrierAdapter,
  type CarrierAdapterOptions,
} from './carrier-adapter.js';
import type { CarrierMilestone, CarrierOrder, CarrierOrderRequest } from '../../domain/shipments/index.js';
import { carrierBLeg, carrierBState } from './carrier-b-statuses.js';
import { callCarrier, readAnswer, type CarrierAnswer } from './carrier-http.js';

/**
 * Carrier B, spoken to as GHTK's shipment API: `Token` and `X-Client-Source` headers; refusals of
 * a well-formed request come as HTTP 200 with `success: false`, so `success` decides, not the status.
 */
const refusal = z.object({
  success: z.literal(false),
  message: z.string(),
  error: z.object({ code: z.string() }).loose().optional(),
});
const createdAnswer = z.object({
  success: z.literal(true),
  order: z.object({
    label: z.string(),
    fee: z.number(),
    insurance_fee: z.number(),
    estimated_deliver_time: z.string(),
    status_id: z.number(),
  }),
});
const statusAnswer = z.object({
  success: z.literal(true),
  order: z.object({
    label_id: z.string(),
    partner_id: z.string(),
    status: z.number(),
    ship_money: z.number(),
    insurance: z.number(),
    return_part_package: z.number(),
    return_label: z.string().nullable().optional(),
  }),
});
const cancelled = z.object({ success: z.literal(true) });
const callbackBody = z.object({
  partner_id: z.string().nullable().optional(),
  label_id: z.string().min(1),
  status_id: z.number().int(),
  action_time: z.string().refine((time) => !Number.isNaN(Date.parse(time)), 'a time'),
  reason: z.string().optional(),
  fee: z.number().optional(),
  return_part_package: z.number().optional(),
});

const NOT_FOUND = /order not found/i;
const ALREADY_CANCELLED = /already cancelled/i;
/** The return label's goods are back at the shop (21), or the return is reconciled (11). */
const returnLegEndings = new Set([21, 11]);

export function carrierB(
  connection: { baseUrl: string; credentials: CarrierBCredentials },
  options: CarrierAdapterOptions,
): CarrierAdapter {
  const transport = { dispatcher: options.dispatcher, timeoutMs: options.timeoutMs ?? CARRIER_CALL_TIMEOUT_MS };
  const headers = { Token: connection.credentials.token, 'X-Client-Source': connection.credentials.clientSource };
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    callCarrier(method, new URL(path, connection.baseUrl).toString(), transport, { headers, body });
  const reference = (code: string) => encodeURIComponent(code);

  /**
   * A `success: false` answer. GHTK gives its refusals with HTTP 200; any other status (a wrong
   * path, a body it could not read) says nothing about the order: a carrier fault.
   */
  const refusalOf = (answer: CarrierAnswer, what: string) => {
    const refused = readAnswer(refusal, answer, what);
    if (answer.status !== 200) throw new CarrierError('unavailable', `${what} answered ${answer.status}: ${refused.message}`);
    return refused;
  };

  async function order(path: string): Promise<CarrierOrder> {
    const answer = await call('GET', path);
    if (isSuccess(answer)) return orderFromStatus(readAnswer(statusAnswer, answer, 'status').order);
    const refused = refusalOf(answer, 'status');
    throw new CarrierError(NOT_FOUND.test(refused.message) ? 'not-found' : 'unavailable', refused.message);
  }

  const adapter: CarrierAdapter = {
    async create(request) {
      const answer = await call('POST', '/services/shipment/order/?ver=1.5', createBody(request));
      if (isSuccess(answer)) {
        const created = readAnswer(createdAnswer, answer, 'create').order;
        return {
          trackingCode: created.label,
          shipmentId: request.shipmentId,
          feeTotal: String(created.fee + created.insurance_fee),
          expectedDeliveryAt: endOfShift(created.estimated_deliver_time),
          carrierStatus: String(created.status_id),
          status: carrierBState(created.status_id, false),
          returnTrackingCode: null,
        };
      }
      const refused = refusalOf(answer, 'create');
      // This partner id is taken (an earlier answer was lost): the order the carrier already has.
      if (refused.error?.code === 'ORDER_ID_EXIST') return adapter.lookup(request.shipmentId);
      throw new CarrierError('rejected', refused.message);
    },

    lookup: (shipmentId) => order(`/services/shipment/v2/partner_id:${reference(shipmentId)}`),

    status: (trackingCode) => order(`/services/shipment/v2/${reference(trackingCode)}`),

    async cancel(trackingCode) {
      const answer = await call('POST', `/services/shipment/cancel/${reference(trackingCode)}`);
      if (isSuccess(answer)) {
        readAnswer(cancelled, answer, 'cancel');
        return;
      }
      const refused = refusalOf(answer, 'cancel');
      // GHTK refuses a second cancel; for us it is done (a retry after a lost answer lands here).
      if (ALREADY_CANCELLED.test(refused.message)) return;
      throw new CarrierError(NOT_FOUND.test(refused.message) ? 'not-found' : 'not-cancellable', refused.message);
    },

    parseCallback: parseCarrierBCallback,
  };
  return adapter;
}

function isSuccess(answer: CarrierAnswer): boolean {
  return (
    answer.status === 200 &&
    typeof answer.body === 'object' &&
    answer.body !== null &&
    (answer.body as { success?: unknown }).success === true
  );
}

function createBody(request: CarrierOrderRequest) {
  const { recipient, pickUp } = request;
  const pieces = request.items.reduce((sum, item) => sum + item.quantity, 0);
  return {
    products: request.items.map((item) => ({
      name: item.name,
      quantity: item.quantity,
      // Grams (weight_option below); the parcel's declared total decides the fee.
      weight: Math.max(1, Math.round(request.weightGram / pieces)),
      ...(item.price ? { price: wholeDong(item.price) } : {}),
    })),
    order: {
      id: request.shipmentId,
      pick_name: pickUp.name,
      pick_address: pickUp.street,
      pick_province: pickUp.province,
      pick_district: pickUp.district,
      ...(pickUp.ward ? { pick_ward: pickUp.ward } : {}),
      pick_tel: pickUp.phone,
      name: recipient.name,
      tel: recipient.phone,
      address: recipient.street,
      province: recipient.province,
      // GHTK takes names; an address of the 2025 layout goes without a district, its ward naming the place.
      ...(recipient.system !== 'new' && recipient.district !== null ? { district: recipient.district } : {}),
      ...(recipient.ward ? { ward: recipient.ward } : {}),
      // GHTK wants a hamlet; "Khác" (other) when there is none.
      hamlet: 'Khác',
      pick_money: wholeDong(request.codAmount),
      // GHTK insures up to 20 000 000 ₫; a higher declared value is capped, not refused.
      value: Math.min(wholeDong(request.declaredValue), 20_000_000),
      // GHTK caps the note at 120 characters.
      ...(request.note ? { note: request.note.slice(0, 120) } : {}),
      // The shop pays the fee; the recipient pays only `pick_money`.
      is_freeship: '1',
      weight_option: 'gram',
      total_weight: request.weightGram,
    },
  };
}

function orderFromStatus(order: z.infer<typeof statusAnswer>['order']): CarrierOrder {
  const partial = order.return_part_package === 1;
  return {
    trackingCode: order.label_id,
    shipmentId: order.partner_id || null,
    feeTotal: String(order.ship_money + order.insurance),
    // The status endpoint does not repeat the promised time.
    expectedDeliveryAt: null,
    carrierStatus: String(order.status),
    status: carrierBState(order.status, partial),
    returnTrackingCode: order.return_label ?? null,
  };
}

/** GHTK's callback body → a milestone; a return leg's steps are milestones with no state (spec). */
export function parseCarrierBCallback(body: unknown): CarrierMilestone {
  const parsed = callbackBody.safeParse(body);
  if (!parsed.success) throw new InvalidCarrierCallback(`not a carrier B callback: ${parsed.error.message.slice(0, 300)}`);
  const callback = parsed.data;
  const partial = callback.return_part_package === 1;
  const leg = carrierBLeg(callback.status_id, partial);
  return {
    trackingCode: callback.label_id,
    shipmentId: callback.partner_id || null,
    leg,
    carrierStatus: String(callback.status_id),
    status: carrierBState(callback.status_id, partial),
    occurredAt: new Date(callback.action_time).toISOString(),
    location: null,
    description: null,
    reason: callback.reason || null,
    feeTotal: leg === 'outbound' && callback.fee !== undefined ? String(callback.fee) : null,
    endsReturnLeg: leg === 'return' && returnLegEndings.has(callback.status_id),
  };
}

/** GHTK promises a work shift of a local day (`Chiều 2024-06-04`): the end of that shift, UTC+7. */
const SHIFT_END_HOUR: Record<string, number> = { Sáng: 12, Chiều: 18, Tối: 22 };

function endOfShift(promise: string): string | null {
  const match = /^(\S+) (\d{4}-\d{2}-\d{2})$/.exec(promise.trim());
  const hour = match ? SHIFT_END_HOUR[match[1]!] : undefined;
  if (!match || hour === undefined) return null;
  return new Date(`${match[2]}T${String(hour).padStart(2, '0')}:00:00+07:00`).toISOString();
}
