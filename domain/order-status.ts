import { assertHolds } from './permissions.js';
import { Problem } from './problems.js';

export const ORDER_STATUSES = [
  'new',
  'waiting_stock',
  'confirmed',
  'packing',
  'ready_to_ship',
  'shipped',
  'delivered',
  'paid',
  'returning',
  'partially_returned',
  'returned',
  'cancelled',
  'deleted',
] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

/**
 * DESIGN.md's default matrix, the same for every shop: narrowing it per shop is not offered yet.
 * `deleted` is reached only by deletion, never by a status change.
 */
const TRANSITIONS: Record<OrderStatus, readonly OrderStatus[]> = {
  new: ['waiting_stock', 'confirmed', 'packing', 'ready_to_ship', 'cancelled'],
  waiting_stock: ['confirmed', 'packing', 'cancelled'],
  confirmed: ['waiting_stock', 'packing', 'ready_to_ship', 'shipped', 'cancelled'],
  packing: ['ready_to_ship', 'shipped', 'cancelled'],
  ready_to_ship: ['packing', 'shipped', 'cancelled'],
  shipped: ['delivered', 'returning', 'cancelled'],
  delivered: ['paid', 'returning', 'partially_returned', 'cancelled'],
  paid: ['returning', 'partially_returned', 'cancelled'],
  returning: ['returned', 'partially_returned', 'cancelled'],
  partially_returned: ['paid', 'returned', 'cancelled'],
  returned: ['cancelled'],
  cancelled: [],
  deleted: [],
};

/**
 * Where an order's goods are: `reserved` in the warehouse (before shipping), `out` with the
 * customer (shipped and later; a return document brings goods back), or `none` (cancelled, deleted).
 */
export type StockPhase = 'reserved' | 'out' | 'none';

export function stockPhase(status: OrderStatus): StockPhase {
  if (['new', 'waiting_stock', 'confirmed', 'packing', 'ready_to_ship'].includes(status)) return 'reserved';
  if (status === 'cancelled' || status === 'deleted') return 'none';
  return 'out';
}

/**
 * Refuses a status change outside the matrix (422 `order-status-not-allowed`), and cancelling an
 * order already shipped without `pos.orders.delete` (403).
 */
export function assertTransition(from: OrderStatus, to: OrderStatus, permissions: readonly string[]): void {
  if (!TRANSITIONS[from].includes(to)) {
    throw new Problem('order-status-not-allowed', `an order cannot move from ${from} to ${to}`);
  }
  if (to === 'cancelled' && stockPhase(from) === 'out') assertHolds(permissions, ['pos.orders.delete'], `cancelling an order in state ${from}`);
}
