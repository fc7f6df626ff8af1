/**
 * Orders: orders with their lines, payments, tags, notes and returns, the status matrix, handler
 * assignment, order codes, and the order set-up lists (orders, order_lines, order_payments,
 * order_tags, order_notes, order_returns, order_assignment_cursors, busiest_handlers,
 * removed_order_transitions, tags, payment_methods, sales_channels; next_order_number()). Other
 * modules import only this file.
 */

export { getOrder, listOrders } from './order-detail.js';
export { changeOrderStatus, deleteOrder, recordReturn, reviewReturn } from './order-lifecycle.js';
export {
  createPaymentMethod,
  createSalesChannel,
  createTag,
  listPaymentMethods,
  listSalesChannels,
  listTags,
  PAYMENT_METHOD_KINDS,
  removeOrderListEntry,
  updateOrderListEntry,
  type OrderList,
} from './order-lists.js';
export { addOrderNote, listOrderNotes } from './order-notes.js';
export { NewOrder, OrderChanges, OrderDetail, OrderLine, OrderNote, OrderRow, OrderStatusSchema } from './order-shapes.js';
export {
  changeShopStatusMatrix,
  DEFAULT_STATUS_MATRIX,
  isOrderStatus,
  ORDER_STATUSES,
  shopStatusMatrix,
  type Transition,
} from './order-status.js';
export { createOrder, updateOrder } from './orders.js';
export {
  DEFAULT_WEIGHT_GRAM,
  prepareShipmentPush,
  recordShipmentCancelled,
  recordShipmentMilestone,
  recordShipmentPushed,
  type ShipmentActor,
} from './order-shipping.js';
