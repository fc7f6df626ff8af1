import type { Answer } from '../shared/http.js';
import type { CarrierDialect } from '../shared/simulator.js';
import type { StatusStep } from '../shared/order-book.js';
import { carrierAStatusDescriptions, warehouseFor, type CarrierAStatus } from './statuses.js';
import type { CarrierAOrder, CarrierAShop } from './store.js';

/** GHN's envelope: `{ code, message, data }`, with `code_message` on errors. */
export function success(data: unknown): Answer {
  return { status: 200, body: { code: 200, message: 'Success', data } };
}

export function failure(status: number, message: string, codeMessage: string, data: unknown = null): Answer {
  return { status, body: { code: status, message, code_message: codeMessage, data } };
}

export const carrierADialect: CarrierDialect = {
  error: (status, message) =>
    failure(status, message, status === 404 ? 'NOT_FOUND' : status >= 500 ? 'SERVER_ERR_COMMON' : 'USER_ERR_COMMON'),
  unavailable: failure(503, 'Service is temporarily unavailable, please try again later', 'SERVICE_UNAVAILABLE'),
  tooManyRequests: failure(429, 'Too many requests: the shop is over its requests-per-second limit', 'TOO_MANY_REQUESTS'),
};

/** `data` of a create answer. */
export function createdData(order: CarrierAOrder) {
  return {
    order_code: order.code,
    sort_code: '190-G-01-A1',
    trans_type: 'truck',
    fee: order.fee,
    total_fee: order.totalFee,
    expected_delivery_time: order.expectedDelivery.toISOString(),
  };
}

/** `data` of the detail answers. */
export function detailData(order: CarrierAOrder) {
  const { request } = order;
  return {
    shop_id: order.shopId,
    order_code: order.code,
    client_order_code: order.clientRef ?? '',
    status: order.status,
    payment_type_id: request.payment_type_id,
    service_type_id: request.service_type_id,
    to_name: request.to_name,
    to_phone: request.to_phone,
    to_address: request.to_address,
    ...(order.destination.layout === 'new'
      ? { is_new_to_address: true, to_province_name: order.destination.provinceName, to_ward_name: order.destination.wardName }
      : { to_ward_code: order.destination.wardCode, to_district_id: order.destination.districtId }),
    weight: request.weight,
    cod_amount: request.cod_amount,
    insurance_value: request.insurance_value,
    note: request.note ?? '',
    required_note: request.required_note,
    content: request.content ?? '',
    items: request.items,
    leadtime: order.expectedDelivery.toISOString(),
    order_date: order.createdAt.toISOString(),
    updated_date: order.updatedAt.toISOString(),
    log: order.history.slice(1).map((step) => ({ status: step.status, updated_date: step.at.toISOString() })),
  };
}

/** GHN's webhook body: `Type` is `create` for the new order, `switch_status` for each change. */
export function callbackPayload(
  order: CarrierAOrder,
  shop: CarrierAShop,
  type: 'create' | 'switch_status',
  step: StatusStep<CarrierAStatus>,
) {
  const { request } = order;
  return {
    CODAmount: request.cod_amount,
    CODTransferDate: null,
    ClientOrderCode: order.clientRef ?? '',
    ConvertedWeight: request.weight,
    Description: carrierAStatusDescriptions[step.status],
    Fee: {
      MainService: order.fee.main_service,
      Insurance: order.fee.insurance,
      CODFee: order.fee.cod_fee,
      StationDO: order.fee.station_do,
      StationPU: order.fee.station_pu,
      Return: order.fee.return,
      R2S: order.fee.r2s,
      Coupon: order.fee.coupon,
      CODFailedFee: order.fee.cod_failed_fee,
    },
    Height: request.height ?? 0,
    IsPartialReturn: false,
    Length: request.length ?? 0,
    OrderCode: order.code,
    PartialReturnCode: '',
    PaymentType: request.payment_type_id,
    Reason: step.reason ?? '',
    ReasonCode: step.reasonCode ?? '',
    ShopID: shop.shopId,
    Status: step.status,
    Time: step.at.toISOString(),
    TotalFee: order.totalFee,
    Type: type,
    Warehouse: warehouseFor(step.status),
    Weight: request.weight,
    Width: request.width ?? 0,
  };
}
