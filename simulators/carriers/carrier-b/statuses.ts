import { StatusGraph } from '../shared/status-graph.js';

/** GHTK's numeric status ids with its own text (`status_text`) and what each means. */
const table = [
  [-1, 'Hủy đơn hàng', 'cancelled'],
  [1, 'Chưa tiếp nhận', 'not received yet'],
  [2, 'Đã tiếp nhận', 'received'],
  [3, 'Đã lấy hàng/Đã nhập kho', 'picked up, in a warehouse'],
  [4, 'Đã điều phối giao hàng/Đang giao hàng', 'out for delivery'],
  [5, 'Đã giao hàng/Chưa đối soát', 'delivered, not reconciled'],
  [6, 'Đã đối soát', 'reconciled'],
  [7, 'Không lấy được hàng', 'could not pick up'],
  [8, 'Hoãn lấy hàng', 'pick-up delayed'],
  [9, 'Không giao được hàng', 'could not deliver'],
  [10, 'Delay giao hàng', 'delivery delayed'],
  [11, 'Đã đối soát công nợ trả hàng', 'return reconciled'],
  [12, 'Đã điều phối lấy hàng/Đang lấy hàng', 'picking up'],
  [13, 'Đơn hàng bồi hoàn', 'compensated (lost)'],
  [20, 'Đang trả hàng (COD cầm hàng đi trả)', 'returning'],
  [21, 'Đã trả hàng (COD đã trả xong hàng)', 'returned'],
  [123, 'Shipper báo đã lấy hàng', 'shipper reports picked up'],
  [127, 'Shipper (nhân viên lấy/giao hàng) báo không lấy được hàng', 'shipper reports could not pick up'],
  [128, 'Shipper báo delay lấy hàng', 'shipper reports pick-up delayed'],
  [45, 'Shipper báo đã giao hàng', 'shipper reports delivered'],
  [49, 'Shipper báo không giao được giao hàng', 'shipper reports could not deliver'],
  [410, 'Shipper báo delay giao hàng', 'shipper reports delivery delayed'],
] as const;

export type CarrierBStatusId = (typeof table)[number][0];

export const carrierBStatusIds: readonly CarrierBStatusId[] = table.map(([id]) => id);
export const carrierBStatusText = new Map<CarrierBStatusId, string>(table.map(([id, text]) => [id, text]));
export const carrierBStatusMeaning = new Map<CarrierBStatusId, string>(table.map(([id, , meaning]) => [id, meaning]));

/**
 * Where each status may go, the usual next step first. Shipper reports (123, 127, 128, 45, 49,
 * 410) come before the warehouse confirms. Cancelling (-1) is listed up to status 3: GHTK cancels
 * until the order is out for delivery (4). 13 (compensated) is a lost parcel.
 */
export const carrierBGraph = new StatusGraph<CarrierBStatusId>([
  [1, [2, -1]],
  [2, [12, -1]],
  [12, [123, 127, 128, -1]],
  [123, [3, -1]],
  [127, [7, -1]],
  [128, [8, -1]],
  [7, [12, -1]],
  [8, [12, -1]],
  [3, [4, -1, 13]],
  [4, [45, 49, 410, 13]],
  [45, [5]],
  [49, [9]],
  [410, [10]],
  [10, [4, 13]],
  [9, [4, 20, 13]],
  [5, [6]],
  [20, [21, 13]],
  [21, [11]],
  [6, []],
  [11, []],
  [13, []],
  [-1, []],
]);

/** A partial delivery is reported while the parcel is out for delivery. */
export const partialDeliveryFrom: readonly CarrierBStatusId[] = [4, 45];
