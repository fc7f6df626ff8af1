import { Decimal } from 'decimal.js';
import { variantFacts } from '../catalog/index.js';
import { pipelined, Problem, syncedPage, type CursorBinding, type ListQuery, type Page } from '../kernel/index.js';
import { writeEvent } from '../events/index.js';
import type { Tx } from '../kernel/index.js';

/** One variant in one warehouse (DESIGN.md, Shapes the spec leaves open); also the `data` of `inventory.stock_changed`. */
export interface StockRow {
  variantId: string;
  productId: string;
  warehouseId: string;
  warehouseName: string;
  variantCode: string;
  quantity: string;
  reserved: string;
  /** quantity − reserved */
  available: string;
  inTransit: string;
  stockChangedAt: string;
}

export interface StockFilters {
  warehouseId?: string;
  variantId?: string;
}

export interface StockMove {
  variantId: string;
  warehouseId: string;
  quantityDelta?: string;
  reservedDelta?: string;
  inTransitDelta?: string;
}

/** numeric(18, 3): 15 digits before the point. */
const QUANTITY_LIMIT = new Decimal('1e15');

const STOCK_COLUMNS = (tx: Tx) => tx`
  stock.variant_id, v.product_id, stock.warehouse_id, w.name as warehouse_name, v.code as variant_code,
  api_decimal(stock.quantity) as quantity, api_decimal(stock.reserved) as reserved,
  api_decimal(stock.quantity - stock.reserved) as available, api_decimal(stock.in_transit) as in_transit,
  api_time(stock.stock_changed_at) as stock_changed_at`;

const STOCK_SOURCE = (tx: Tx) => tx`
  stock
  join ${variantFacts(tx)} v on v.id = stock.variant_id
  join warehouses w on w.id = stock.warehouse_id`;

/**
 * `GET /inventory/stock`: sorted by (stock change, id); the mark moves only when quantity or in
 * transit changes (the `stock_mark_change` trigger). Rows of a removed variant, a deleted product or
 * a deleted warehouse leave the list.
 */
export async function listStock(
  tx: Tx,
  query: ListQuery & StockFilters,
  binding: CursorBinding,
  ceilingSeconds: number,
): Promise<Page<StockRow>> {
  return syncedPage<StockRow>(
    tx,
    {
      table: 'stock',
      column: 'stock_changed_at',
      softDelete: false,
      source: STOCK_SOURCE(tx),
      columns: STOCK_COLUMNS(tx),
      filters: () => [
        tx`not v.removed and not v.product_deleted and w.deleted_at is null`,
        ...(query.warehouseId === undefined ? [] : [tx`stock.warehouse_id = ${query.warehouseId}`]),
        ...(query.variantId === undefined ? [] : [tx`stock.variant_id = ${query.variantId}`]),
      ],
    },
    { query, binding, ceilingSeconds },
  );
}

/** One stock row (by `stock.id`) in the list's shape, whatever the state of its variant or warehouse. */
export async function getStockRow(tx: Tx, stockId: string): Promise<StockRow> {
  const [row] = await tx<StockRow[]>`select ${STOCK_COLUMNS(tx)} from ${STOCK_SOURCE(tx)} where stock.id = ${stockId}`;
  if (!row) throw new Error(`stock row ${stockId} not found`);
  return row;
}

/** The stock row of `variantId` changed last (of its warehouses), in the list's shape; undefined when it has none. */
export async function latestStockRowOf(tx: Tx, variantId: string): Promise<StockRow | undefined> {
  const [row] = await tx<{ id: string }[]>`select id from stock where variant_id = ${variantId} order by stock_changed_at desc limit 1`;
  return row ? getStockRow(tx, row.id) : undefined;
}

/**
 * Applies stock moves in the caller's transaction, and writes one `inventory.stock_changed` event
 * (no `changes`) per stock row whose quantity or in-transit amount changed. Moves of the same
 * variant and warehouse are added together; rows are created on demand and locked in (variant,
 * warehouse) order, so concurrent callers do not deadlock on each other.
 *
 * Refusals (422 `insufficient-stock`, nothing written): a move that lowers `available`
 * (quantity − reserved) below zero, one that takes out more than is on hand (shipping reserved goods
 * that were since counted short), and `reserved` or `inTransit` going below zero.
 *
 * The caller vouches that the variants and warehouses belong to the shop (foreign keys do not see
 * row-level security).
 */
export async function adjustStock(tx: Tx, shopId: string, moves: readonly StockMove[]): Promise<void> {
  for (const move of mergedMoves(moves)) {
    // Creates the row when missing, and locks it either way (the no-op update keeps stock_changed_at).
    const [before] = await tx<({ id: string } & StockAmounts)[]>`
      insert into stock (shop_id, variant_id, warehouse_id) values (${shopId}, ${move.variantId}, ${move.warehouseId})
      on conflict (variant_id, warehouse_id) do update set variant_id = excluded.variant_id
      returning id, quantity, reserved, in_transit`;
    assertMoveAllowed(before!, move);
    const update = tx`
      update stock set
        quantity = quantity + ${move.quantity.toFixed()}::numeric,
        reserved = reserved + ${move.reserved.toFixed()}::numeric,
        in_transit = in_transit + ${move.inTransit.toFixed()}::numeric
      where id = ${before!.id}`;
    // Only a change of quantity or in-transit amount is an event (a reservation alone is not); its
    // row is read in the update's round trip.
    if (move.quantity.isZero() && move.inTransit.isZero()) await update;
    else
      await writeEvent(tx, {
        shopId,
        type: 'inventory.stock_changed',
        resourceId: before!.id,
        data: await pipelined(update, () => getStockRow(tx, before!.id)),
      });
  }
}

/**
 * Whether `moves` could be applied now, without applying them: adjustStock's refusals against the
 * rows as last committed (a missing row holds nothing), in one read, with no lock and no write. A
 * check before an outside call (a carrier's); adjustStock checks again under its lock.
 */
export async function checkStockMoves(tx: Tx, moves: readonly StockMove[]): Promise<void> {
  const merged = mergedMoves(moves);
  if (merged.length === 0) return;
  const rows = await tx<({ variantId: string; warehouseId: string } & StockAmounts)[]>`
    select stock.variant_id, stock.warehouse_id, stock.quantity, stock.reserved, stock.in_transit
    from stock
    join unnest(${merged.map((move) => move.variantId)}::uuid[], ${merged.map((move) => move.warehouseId)}::uuid[])
      as wanted (variant_id, warehouse_id) on wanted.variant_id = stock.variant_id and wanted.warehouse_id = stock.warehouse_id`;
  for (const move of merged) {
    const row = rows.find((candidate) => candidate.variantId === move.variantId && candidate.warehouseId === move.warehouseId);
    assertMoveAllowed(row ?? { quantity: '0', reserved: '0', inTransit: '0' }, move);
  }
}

/** What a stock row holds (numeric text). */
interface StockAmounts {
  quantity: string;
  reserved: string;
  inTransit: string;
}

interface MergedMove {
  variantId: string;
  warehouseId: string;
  quantity: Decimal;
  reserved: Decimal;
  inTransit: Decimal;
}

/** Moves of the same variant and warehouse added together, those that move nothing left out, in (variant, warehouse) order. */
function mergedMoves(moves: readonly StockMove[]): MergedMove[] {
  const merged = new Map<string, MergedMove>();
  for (const move of moves) {
    const key = `${move.variantId}/${move.warehouseId}`;
    const entry = merged.get(key) ?? {
      variantId: move.variantId,
      warehouseId: move.warehouseId,
      quantity: new Decimal(0),
      reserved: new Decimal(0),
      inTransit: new Decimal(0),
    };
    entry.quantity = entry.quantity.plus(move.quantityDelta ?? 0);
    entry.reserved = entry.reserved.plus(move.reservedDelta ?? 0);
    entry.inTransit = entry.inTransit.plus(move.inTransitDelta ?? 0);
    merged.set(key, entry);
  }
  return [...merged.values()]
    .filter((move) => !move.quantity.isZero() || !move.reserved.isZero() || !move.inTransit.isZero())
    .sort((a, b) => compare(a.variantId, b.variantId) || compare(a.warehouseId, b.warehouseId));
}

/** Throws the refusal of `move` on a row holding `before` (adjustStock's list), if it has one. */
function assertMoveAllowed(before: StockAmounts, move: MergedMove): void {
  const quantity = new Decimal(before.quantity);
  const reserved = new Decimal(before.reserved);
  const inTransit = new Decimal(before.inTransit);
  const availableBefore = quantity.minus(reserved);
  const after = {
    quantity: quantity.plus(move.quantity),
    reserved: reserved.plus(move.reserved),
    inTransit: inTransit.plus(move.inTransit),
  };
  const availableAfter = after.quantity.minus(after.reserved);
  const where = `variant ${move.variantId} in warehouse ${move.warehouseId}`;
  if (availableAfter.lt(availableBefore) && availableAfter.isNegative()) {
    throw new Problem(
      'insufficient-stock',
      `${where}: ${availableBefore.toFixed()} available, ${availableBefore.minus(availableAfter).toFixed()} needed`,
    );
  }
  if (move.quantity.isNegative() && after.quantity.isNegative())
    throw new Problem('insufficient-stock', `${where}: only ${quantity.toFixed()} on hand, ${move.quantity.neg().toFixed()} to take out`);
  if (after.reserved.isNegative())
    throw new Problem('insufficient-stock', `${where}: only ${reserved.toFixed()} reserved, ${move.reserved.neg().toFixed()} to release`);
  if (after.inTransit.isNegative())
    throw new Problem(
      'insufficient-stock',
      `${where}: only ${inTransit.toFixed()} in transit, ${move.inTransit.neg().toFixed()} to receive`,
    );
  if ([after.quantity, after.reserved, after.inTransit].some((value) => value.abs().gte(QUANTITY_LIMIT))) {
    throw new Problem('validation-failed', `${where}: the stock would exceed ${QUANTITY_LIMIT.minus('0.001').toFixed()}`);
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
