import { z } from 'zod';
import type { CarrierACredentials } from '../../domain/shipments/index.js';
import {
  CARRIER_CALL_TIMEOUT_MS,
  CarrierError,
  InvalidCarrierCallback,
  wholeDong,
  type CarrierAdapter,
  type CarrierAdapterOptions,
} from './carrier-adapter.js';
import type { CarrierMilestone, CarrierOrder, CarrierOrderRequest, CarrierRecipient } from '../../domain/shipments/index.js';
import { carrierAArea, carrierANewArea } from './carrier-a-areas.js';
import { carrierAState } from './carrier-a-statuses.js';
import { callCarrier, readAnswer, type CarrierAnswer, type CarrierTransport } from './carrier-http.js';

/**
 * Carrier A, spoken to as GHN's public API: `/shiip/public-api/v2`, `Token` and `ShopId` headers,
 * answers `{ code, message, data }` with `code_message` on errors.
 */
const API = '/shiip/public-api/v2';

const errorAnswer = z.object({ code: z.number(), message: z.string(), code_message: z.string().optional(), data: z.unknown() });
const createdAnswer = z.object({
  code: z.literal(200),
  data: z.object({ order_code: z.string(), total_fee: z.number(), expected_delivery_time: z.string() }),
});
const detailAnswer = z.object({
  code: z.literal(200),
  data: z.object({ order_code: z.string(), client_order_code: z.string(), status: z.string(), leadtime: z.string().nullable().optional() }),
});
const cancelAnswer = z.object({
  code: z.literal(200),
  data: z.array(z.object({ order_code: z.string(), result: z.boolean(), message: z.string() })),
});
const callbackBody = z.object({
  OrderCode: z.string().min(1),
  ClientOrderCode: z.string().optional(),
  Status: z.string().min(1),
  Time: z.string().refine((time) => !Number.isNaN(Date.parse(time)), 'a time'),
  Description: z.string().optional(),
  Reason: z.string().optional(),
  Warehouse: z.string().optional(),
  TotalFee: z.number().optional(),
});

/** GHN's newest orders start here; a create answer does not repeat it. */
const CREATED_STATUS = 'ready_to_pick';

export function carrierA(
  connection: { baseUrl: string; credentials: CarrierACredentials },
  options: CarrierAdapterOptions,
): CarrierAdapter {
  const transport = { dispatcher: options.dispatcher, timeoutMs: options.timeoutMs ?? CARRIER_CALL_TIMEOUT_MS };
  const headers = { Token: connection.credentials.token, ShopId: String(connection.credentials.shopId) };
  const post = (path: string, body: unknown) =>
    callCarrier('POST', new URL(`${API}${path}`, connection.baseUrl).toString(), transport, { headers, body });

  /** A GHN error answer: its `code_message` and message; anything unreadable is a carrier fault. */
  const failureOf = (answer: CarrierAnswer, what: string) => readAnswer(errorAnswer, answer, what);

  async function detail(path: string, body: unknown): Promise<CarrierOrder> {
    const answer = await post(path, body);
    if (answer.status === 200) return orderFromDetail(readAnswer(detailAnswer, answer, 'detail').data);
    const failure = failureOf(answer, 'detail');
    if (failure.code_message === 'ORDER_NOT_FOUND') throw new CarrierError('not-found', failure.message);
    throw new CarrierError('unavailable', `detail refused (${answer.status} ${failure.code_message ?? ''}): ${failure.message}`);
  }

  const adapter: CarrierAdapter = {
    async create(request) {
      const master = { baseUrl: connection.baseUrl, token: connection.credentials.token, transport };
      const answer = await post('/shipping-order/create', createBody(request, await destinationOf(master, request.recipient)));
      if (answer.status === 200) {
        const { data } = readAnswer(createdAnswer, answer, 'create');
        return {
          trackingCode: data.order_code,
          shipmentId: request.shipmentId,
          feeTotal: String(data.total_fee),
          expectedDeliveryAt: isoTime(data.expected_delivery_time),
          carrierStatus: CREATED_STATUS,
          status: carrierAState(CREATED_STATUS),
          returnTrackingCode: null,
        };
      }
      const failure = failureOf(answer, 'create');
      // Already created under this shipment id (an earlier answer was lost): the existing order.
      if (failure.code_message === 'DUPLICATE_CLIENT_ORDER_CODE') return adapter.lookup(request.shipmentId);
      if (answer.status === 400) throw new CarrierError('rejected', failure.message);
      throw new CarrierError('unavailable', `create refused (${answer.status}): ${failure.message}`);
    },

    lookup: (shipmentId) => detail('/shipping-order/detail-by-client-code', { client_order_code: shipmentId }),

    status: (trackingCode) => detail('/shipping-order/detail', { order_code: trackingCode }),

    async cancel(trackingCode) {
      const answer = await post('/switch-status/cancel', { order_codes: [trackingCode] });
      if (answer.status !== 200)
        throw new CarrierError('unavailable', `cancel refused (${answer.status}): ${failureOf(answer, 'cancel').message}`);
      const result = readAnswer(cancelAnswer, answer, 'cancel').data.find((entry) => entry.order_code === trackingCode);
      if (!result) throw new CarrierError('unavailable', `the cancel answer does not mention ${trackingCode}`);
      if (result.result) return;
      if (/not found/i.test(result.message)) throw new CarrierError('not-found', result.message);
      throw new CarrierError('not-cancellable', result.message);
    },

    parseCallback: parseCarrierACallback,
  };
  return adapter;
}

/** GHN's `to_*` fields of an area: the 2025 layout by GHN's names with `is_new_to_address`, the old one by its ids. */
type Destination =
  { is_new_to_address: true; to_province_name: string; to_ward_name: string } | { to_district_id: number; to_ward_code: string };

async function destinationOf(
  master: { baseUrl: string; token: string; transport: CarrierTransport },
  recipient: CarrierRecipient,
): Promise<Destination> {
  const { province, district, ward } = recipient;
  if (recipient.system !== 'new' && district !== null) {
    const area = await carrierAArea(master, { province, district, ward });
    return { to_district_id: area.districtId, to_ward_code: area.wardCode };
  }
  if (!ward) throw new CarrierError('rejected', "carrier A needs the recipient's ward, and the address has none");
  const area = await carrierANewArea(master, { province, ward });
  return { is_new_to_address: true, to_province_name: area.provinceName, to_ward_name: area.wardName };
}

function createBody(request: CarrierOrderRequest, destination: Destination) {
  const { recipient, pickUp } = request;
  return {
    // The shop pays the fee; the recipient pays only the cash on delivery.
    payment_type_id: 1,
    required_note: 'CHOXEMHANGKHONGTHU',
    client_order_code: request.shipmentId,
    note: request.note ?? undefined,
    from_name: pickUp.name,
    from_phone: pickUp.phone,
    from_address: joinAddress(pickUp),
    to_name: recipient.name,
    to_phone: recipient.phone,
    to_address: joinAddress(recipient),
    ...destination,
    cod_amount: wholeDong(request.codAmount),
    // GHN insures up to 5 000 000 ₫; a higher declared value is capped, not refused.
    insurance_value: Math.min(wholeDong(request.declaredValue), 5_000_000),
    weight: request.weightGram,
    service_type_id: request.weightGram > 20_000 ? 5 : 2,
    content: request.items
      .map((item) => `${item.quantity} × ${item.name}`)
      .join(', ')
      .slice(0, 2_000),
    items: request.items.map((item) => ({
      name: item.name,
      quantity: item.quantity,
      ...(item.price ? { price: wholeDong(item.price) } : {}),
    })),
  };
}

function joinAddress(address: { street: string; ward: string | null; district: string | null; province: string }): string {
  return [address.street, address.ward, address.district, address.province].filter(Boolean).join(', ');
}

function orderFromDetail(data: z.infer<typeof detailAnswer>['data']): CarrierOrder {
  return {
    trackingCode: data.order_code,
    shipmentId: data.client_order_code || null,
    // GHN's detail does not repeat the fee; callbacks carry it.
    feeTotal: null,
    expectedDeliveryAt: data.leadtime ? isoTime(data.leadtime) : null,
    carrierStatus: data.status,
    status: carrierAState(data.status),
    returnTrackingCode: null,
  };
}

/** GHN's webhook body → a milestone; `Warehouse` is where the goods are. */
export function parseCarrierACallback(body: unknown): CarrierMilestone {
  const parsed = callbackBody.safeParse(body);
  if (!parsed.success) throw new InvalidCarrierCallback(`not a carrier A callback: ${parsed.error.message.slice(0, 300)}`);
  const callback = parsed.data;
  return {
    trackingCode: callback.OrderCode,
    shipmentId: callback.ClientOrderCode || null,
    leg: 'outbound',
    carrierStatus: callback.Status,
    status: carrierAState(callback.Status),
    occurredAt: isoTime(callback.Time),
    location: callback.Warehouse || null,
    description: callback.Description || null,
    reason: callback.Reason || null,
    feeTotal: callback.TotalFee === undefined ? null : String(callback.TotalFee),
    // GHN's returns run on the same order code: its final states end the tracking.
    endsReturnLeg: false,
  };
}

function isoTime(text: string): string {
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) throw new CarrierError('unavailable', `unreadable time from the carrier: ${text}`);
  return time.toISOString();
}
