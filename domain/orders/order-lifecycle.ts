import { Decimal } from 'decimal.js';
import { adjustStock, checkStockMoves } from '../inventory/index.js';
import { lockedOrder, getOrder, type OrderDetail } from './order-detail.js';
import type { OrderActor } from './orders.js';
import { assertTransition, shopStatusMatrix, stockPhase, type OrderStatus, type StatusMatrix } from './order-status.js';
import { goodsMoves, stockedLinesOf, type StockedLine } from './order-stock.js';
import { diffSnapshots, recordUpdate, writeEvent } from '../events/index.js';
import { pipelined, Problem } from '../kernel/index.js';
import { writeShopLog } from '../access/index.js';
import type { Tx } from '../kernel/index.js';

/**
 * `POST /orders/{id}/status`: a move inside the matrix, with its stock: shipping takes the reserved
 * goods out of quantity, cancelling releases them or takes back what the customer holds.
 * Emits `order.status_changed` with `changes.status`; the reason goes to the shop log.
 */
export async function changeOrderStatus(
  tx: Tx,
  actor: OrderActor & { applicationId: string | null },
  id: string,
  request: { status: OrderStatus; reason?: string | undefined },
): Promise<OrderDetail> {
  if (request.status === 'deleted') throw new Problem('order-status-not-allowed', 'an order reaches deleted only by DELETE /orders/{id}');
  // The goods are read in the lock's round trip: after it, on the same connection.
  const [before, matrix, lines] = await Promise.all([lockedOrder(tx, id), shopStatusMatrix(tx), stockedLinesOf(tx, id)]);
  assertTransition(before.status, request.status, actor.permissions, matrix);
  await moveGoods(tx, actor.shopId, before, request.status, lines);
  return setStatus(tx, actor, before, request.status, request.reason ?? null);
}

/** The move itself, once checked and its goods moved: the status, `order.status_changed`, the shop log with the reason. */
async function setStatus(
  tx: Tx,
  actor: { shopId: string; applicationId: string | null },
  before: OrderDetail,
  to: OrderStatus,
  reason: string | null,
): Promise<OrderDetail> {
  const after = await pipelined(tx`update orders set status = ${to}, updated_at = clock_timestamp() where id = ${before.id}`, () =>
    getOrder(tx, before.id),
  );
  // The event and the log line are independent: both go out in one round trip.
  await Promise.all([
    writeEvent(tx, {
      shopId: actor.shopId,
      type: 'order.status_changed',
      resourceId: before.id,
      data: after,
      changes: diffSnapshots(before, after)!,
    }),
    writeShopLog(tx, {
      shopId: actor.shopId,
      actorUserId: null,
      actorApplicationId: actor.applicationId,
      action: 'order.status_changed',
      subjectType: 'order',
      subjectId: before.id,
      details: { from: before.status, to, reason },
    }),
  ]);
  return after;
}

/** `DELETE /orders/{id}`: status `deleted` with `deletedAt`, goods released like a cancellation; `order.deleted`. Again: no-op. */
export async function deleteOrder(tx: Tx, shopId: string, id: string): Promise<OrderDetail> {
  const before = await lockedOrder(tx, id);
  if (before.status === 'deleted') return before;
  await moveGoods(tx, shopId, before, 'deleted', await stockedLinesOf(tx, id));
  const after = await pipelined(
    tx`update orders set status = 'deleted', deleted_at = clock_timestamp(), updated_at = clock_timestamp() where id = ${id}`,
    () => getOrder(tx, id),
  );
  await writeEvent(tx, { shopId, type: 'order.deleted', resourceId: id, data: after });
  return after;
}

/**
 * Whether the order could move to `to` now (the shop's `matrix`, the stock of its stocked `lines`),
 * without moving it: the stock as last committed, read without a lock (the move itself checks again
 * under its lock). Throws the move's own refusal.
 */
export async function trialMove(
  tx: Tx,
  actor: OrderActor,
  order: OrderDetail,
  to: OrderStatus,
  known: { matrix: StatusMatrix; lines: readonly StockedLine[] },
): Promise<void> {
  assertTransition(order.status, to, actor.permissions, known.matrix);
  await checkStockMoves(tx, goodsMoves(known.lines, order.warehouseId, stockPhase(order.status), stockPhase(to)));
}

/**
 * A shipment cancelled before pick-up: an order still `shipped` goes back to `ready_to_ship` and its
 * goods are reserved again (they never left the warehouse). Not a move of the matrix: the push is
 * undone. `order.status_changed`, the reason in the shop log. An order that moved on stays.
 */
export async function shipGoodsBack(
  tx: Tx,
  actor: { shopId: string; applicationId: string | null },
  id: string,
  reason: string,
): Promise<void> {
  const before = await lockedOrder(tx, id);
  if (before.status !== 'shipped') return;
  await adjustStock(tx, actor.shopId, goodsMoves(await stockedLinesOf(tx, id), before.warehouseId, 'out', 'reserved'));
  await setStatus(tx, actor, before, 'ready_to_ship', reason);
}

/** The goods of `order` (its stocked `lines`) moved from its status's stock phase to `to`'s. */
function moveGoods(tx: Tx, shopId: string, order: OrderDetail, to: OrderStatus, lines: readonly StockedLine[]): Promise<void> {
  return adjustStock(tx, shopId, goodsMoves(lines, order.warehouseId, stockPhase(order.status), stockPhase(to)));
}

export interface ReturnInput {
  lines: { lineId: string; quantity: string }[];
  /** An exchange (size, colour) rather than a refund. */
  exchange: boolean;
  /** Another order the returned value is credited to (its `creditApplied`). */
  creditOrderId?: string | undefined;
}

/**
 * A customer return of shipped goods (a platform operation, no endpoint): the goods go back to
 * the warehouse's quantity, `returnedQuantity` and `returnedAmount` grow (a line's value is its
 * line total × returned / quantity, rounded to three decimals), and `exchangeReturn` becomes true
 * when every return of the order is an exchange. Emits `order.updated`.
 */
export async function recordReturn(
  tx: Tx,
  shopId: string,
  orderId: string,
  input: ReturnInput,
): Promise<{ returnId: string; order: OrderDetail }> {
  const before = await lockedOrder(tx, orderId);
  if (stockPhase(before.status) !== 'out')
    throw new Problem('conflict', `order ${before.code} in state ${before.status} has no goods with the customer`);
  const stocked = new Set((await stockedLinesOf(tx, orderId)).map((line) => line.variantId));
  let amount = new Decimal(0);
  const moves = input.lines.map((returned, index) => {
    const line = before.lines.find((candidate) => candidate.id === returned.lineId);
    const path = `lines.${index}`;
    if (!line)
      throw new Problem('validation-failed', `no line ${returned.lineId} in order ${before.code}`, {
        errors: [{ path: `${path}.lineId`, message: 'not a line of the order' }],
      });
    const quantity = new Decimal(returned.quantity);
    if (quantity.lte(0) || quantity.plus(line.returnedQuantity).gt(line.quantity)) {
      throw new Problem('validation-failed', `line ${line.id}: ${line.returnedQuantity} of ${line.quantity} already returned`, {
        errors: [{ path: `${path}.quantity`, message: 'more than was sold' }],
      });
    }
    amount = amount.plus(new Decimal(line.lineTotal).times(quantity).div(line.quantity).toDecimalPlaces(3, Decimal.ROUND_HALF_UP));
    return { line, quantity };
  });
  for (const { line, quantity } of moves) {
    await tx`update order_lines set returned_quantity = returned_quantity + ${quantity.toFixed()}::numeric where id = ${line.id}`;
  }
  await adjustStock(
    tx,
    shopId,
    moves
      .filter(({ line }) => stocked.has(line.variantId))
      .map(({ line, quantity }) => ({ variantId: line.variantId, warehouseId: before.warehouseId, quantityDelta: quantity.toFixed() })),
  );
  const [created] = await tx<{ id: string }[]>`
    insert into order_returns (shop_id, order_id, exchange, amount, credit_order_id)
    values (${shopId}, ${orderId}, ${input.exchange}, ${amount.toFixed()}, ${input.creditOrderId ?? null}) returning id`;
  await tx`update orders set returned_amount = returned_amount + ${amount.toFixed()}::numeric, updated_at = clock_timestamp() where id = ${orderId}`;
  const after = await finishReturnChange(tx, shopId, before);
  if (input.creditOrderId) await creditOrder(tx, shopId, input.creditOrderId, amount);
  return { returnId: created!.id, order: after };
}

/** A review switching one return between refund and exchange; `order.updated` names `exchangeReturn` when the order's flag flips. */
export async function reviewReturn(tx: Tx, shopId: string, returnId: string, exchange: boolean): Promise<OrderDetail> {
  const [row] = await tx<{ orderId: string }[]>`select order_id from order_returns where id = ${returnId}`;
  if (!row) throw new Problem('not-found', `no return ${returnId}`);
  const before = await lockedOrder(tx, row.orderId);
  await tx`update order_returns set exchange = ${exchange} where id = ${returnId}`;
  return finishReturnChange(tx, shopId, before);
}

async function finishReturnChange(tx: Tx, shopId: string, before: OrderDetail): Promise<OrderDetail> {
  await tx`
    update orders set exchange_return = coalesce((select bool_and(exchange) from order_returns where order_id = ${before.id}), false),
      updated_at = clock_timestamp()
    where id = ${before.id}`;
  const after = await getOrder(tx, before.id);
  await recordUpdate(tx, { shopId, resource: 'order', resourceId: before.id, before, after });
  return after;
}

async function creditOrder(tx: Tx, shopId: string, orderId: string, amount: Decimal): Promise<void> {
  const before = await lockedOrder(tx, orderId);
  await tx`update orders set credit_applied = credit_applied + ${amount.toFixed()}::numeric, updated_at = clock_timestamp() where id = ${orderId}`;
  const after = await getOrder(tx, orderId);
  await recordUpdate(tx, { shopId, resource: 'order', resourceId: orderId, before, after });
}
