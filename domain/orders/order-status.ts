import { assertHolds, writeShopLog } from '../access/index.js';
import { Problem } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';

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

export function isOrderStatus(value: string | undefined): value is OrderStatus {
  return (ORDER_STATUSES as readonly (string | undefined)[]).includes(value);
}

export type StatusMatrix = Record<OrderStatus, readonly OrderStatus[]>;

/**
 * DESIGN.md's default matrix; a shop may only narrow it (remove moves, never add one).
 * `deleted` is reached only by deletion, never by a status change.
 */
export const DEFAULT_STATUS_MATRIX: StatusMatrix = {
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
 * Refuses a status change outside the shop's matrix (422 `order-status-not-allowed`), and
 * cancelling an order already shipped without `pos.orders.delete` (403).
 */
export function assertTransition(
  from: OrderStatus,
  to: OrderStatus,
  permissions: readonly string[],
  matrix: StatusMatrix = DEFAULT_STATUS_MATRIX,
): void {
  if (!matrix[from].includes(to)) {
    const detail = DEFAULT_STATUS_MATRIX[from].includes(to)
      ? `this shop does not allow an order to move from ${from} to ${to}`
      : `an order cannot move from ${from} to ${to}`;
    throw new Problem('order-status-not-allowed', detail);
  }
  if (to === 'cancelled' && stockPhase(from) === 'out')
    assertHolds(permissions, ['pos.orders.delete'], `cancelling an order in state ${from}`);
}

export type Transition = readonly [from: OrderStatus, to: OrderStatus];

/** The current shop's matrix: the default less the moves it removed. */
export async function shopStatusMatrix(tx: Tx): Promise<StatusMatrix> {
  const removed = await tx<
    { fromStatus: OrderStatus; toStatus: OrderStatus }[]
  >`select from_status, to_status from removed_order_transitions`;
  if (removed.length === 0) return DEFAULT_STATUS_MATRIX;
  const without = new Set(removed.map((row) => `${row.fromStatus}>${row.toStatus}`));
  const matrix = {} as Record<OrderStatus, OrderStatus[]>;
  for (const from of ORDER_STATUSES) matrix[from] = DEFAULT_STATUS_MATRIX[from].filter((to) => !without.has(`${from}>${to}`));
  return matrix;
}

/**
 * Narrows the shop's matrix (`remove`) or gives back default moves (`restore`); a move outside the
 * default is refused with 400 `validation-failed`. Returns the shop's matrix after the change.
 */
export async function changeShopStatusMatrix(
  tx: Tx,
  shopId: string,
  changes: { remove?: readonly Transition[]; restore?: readonly Transition[] },
  actorUserId: string | null,
): Promise<StatusMatrix> {
  const errors = (['remove', 'restore'] as const).flatMap((kind) =>
    (changes[kind] ?? []).flatMap(([from, to], index) =>
      DEFAULT_STATUS_MATRIX[from]?.includes(to)
        ? []
        : [{ path: `${kind}.${index}`, message: `${from} → ${to} is not a move of the default matrix` }],
    ),
  );
  if (errors.length > 0)
    throw new Problem('validation-failed', 'a shop may only remove moves of the default order status matrix', { errors });
  for (const [from, to] of changes.remove ?? []) {
    await tx`insert into removed_order_transitions (shop_id, from_status, to_status) values (${shopId}, ${from}, ${to}) on conflict do nothing`;
  }
  for (const [from, to] of changes.restore ?? []) {
    await tx`delete from removed_order_transitions where from_status = ${from} and to_status = ${to}`;
  }
  await writeShopLog(tx, {
    shopId,
    actorUserId,
    action: 'shop.order_statuses_changed',
    subjectType: 'shop',
    subjectId: shopId,
    details: { removed: changes.remove ?? [], restored: changes.restore ?? [] },
  });
  return shopStatusMatrix(tx);
}
