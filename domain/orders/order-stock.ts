import { Decimal } from 'decimal.js';
import { variantFacts } from '../catalog/index.js';
import type { StockMove } from '../inventory/index.js';
import type { ResolvedLine } from './order-input.js';
import type { StockPhase } from './order-status.js';
import type { Tx } from '../kernel/index.js';

/** An order line that holds stock (services hold none). */
export interface StockedLine {
  variantId: string;
  quantity: string;
  returnedQuantity: string;
}

/** The stocked lines of a stored order. */
export async function stockedLinesOf(tx: Tx, orderId: string): Promise<StockedLine[]> {
  return tx<StockedLine[]>`
    select l.variant_id, l.quantity::text as quantity, l.returned_quantity::text as returned_quantity
    from order_lines l
    where l.order_id = ${orderId} and exists (select 1 from ${variantFacts(tx)} v where v.id = l.variant_id and not v.service)
    order by l.position`;
}

/** The stocked lines of an order about to be written, from its resolved lines (nothing returned yet). */
export function stockedLinesIn(lines: readonly ResolvedLine[]): StockedLine[] {
  return lines
    .filter((line) => line.stocked)
    .map((line) => ({ variantId: line.variantId, quantity: line.quantity, returnedQuantity: '0' }));
}

/**
 * The stock moves of an order's goods going from one phase to another in its warehouse: reserving
 * (none → reserved), releasing (reserved → none), shipping (reserved → out: out of quantity and
 * reserved), taking back what the customer still holds (out → none), and un-shipping (out → reserved).
 */
export function goodsMoves(lines: readonly StockedLine[], warehouseId: string, from: StockPhase, to: StockPhase): StockMove[] {
  if (from === to) return [];
  return lines.map((line) => {
    const quantity = new Decimal(line.quantity);
    const move = { variantId: line.variantId, warehouseId };
    if (from === 'none' && to === 'reserved') return { ...move, reservedDelta: quantity.toFixed() };
    if (from === 'reserved' && to === 'none') return { ...move, reservedDelta: quantity.neg().toFixed() };
    if (from === 'reserved' && to === 'out')
      return { ...move, quantityDelta: quantity.neg().toFixed(), reservedDelta: quantity.neg().toFixed() };
    if (from === 'out' && to === 'none') return { ...move, quantityDelta: quantity.minus(line.returnedQuantity).toFixed() };
    // A shipment cancelled before pick-up: the goods are back on the shelf, reserved for the order again.
    if (from === 'out' && to === 'reserved') return { ...move, quantityDelta: quantity.toFixed(), reservedDelta: quantity.toFixed() };
    throw new Error(`order goods cannot go from ${from} to ${to}`);
  });
}
