import { describe, expect, it } from 'vitest';
import { adjustStock, checkStockMoves, type StockMove } from '../../domain/inventory/index.js';
import { Problem } from '../../domain/kernel/index.js';
import { useInventorySuite } from './inventory-kit.js';

/** checkStockMoves: the refusals of a stock move before an outside call (a push's), with no lock and no write. */
const { shop, arrange, newWarehouse, newProduct, receive, stockOf } = useInventorySuite();

class RolledBack extends Error {}

/** The refusal `work` throws (code and detail), or `allowed`. */
type Outcome = 'allowed' | { code: string; detail: string };

async function outcome(work: () => Promise<unknown>): Promise<Outcome> {
  try {
    await work();
    return 'allowed';
  } catch (error) {
    if (error instanceof RolledBack) return 'allowed';
    if (error instanceof Problem) return { code: error.code, detail: error.detail };
    throw error;
  }
}

describe('checking stock moves without making them', () => {
  it('refuses what adjustStock refuses, with the same detail, and allows what it allows', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct({ variants: 2 });
    const [stocked, neverStocked] = variantIds as [string, string];
    await receive(warehouseId, [{ variantId: stocked, quantity: '2' }]);
    const cases: StockMove[][] = [
      [{ variantId: stocked, warehouseId, quantityDelta: '-3' }],
      [{ variantId: stocked, warehouseId, reservedDelta: '3' }],
      [{ variantId: stocked, warehouseId, reservedDelta: '-1' }],
      [{ variantId: stocked, warehouseId, inTransitDelta: '-1' }],
      [{ variantId: neverStocked, warehouseId, quantityDelta: '-1' }],
      // Moves of one row add up before the check.
      [
        { variantId: stocked, warehouseId, reservedDelta: '2' },
        { variantId: stocked, warehouseId, reservedDelta: '1' },
      ],
      [{ variantId: stocked, warehouseId, reservedDelta: '2' }],
      [
        { variantId: stocked, warehouseId, quantityDelta: '-2' },
        { variantId: neverStocked, warehouseId, quantityDelta: '5' },
      ],
    ];
    const checked: Outcome[] = [];
    const applied: Outcome[] = [];
    for (const moves of cases) {
      checked.push(await outcome(() => arrange((tx) => checkStockMoves(tx, moves))));
      applied.push(
        await outcome(() =>
          arrange(async (tx) => {
            await adjustStock(tx, shop.shopId, moves);
            throw new RolledBack();
          }),
        ),
      );
    }
    expect(checked).toEqual(applied);
    expect(checked.map((each) => (each === 'allowed' ? each : each.code))).toEqual([
      'insufficient-stock',
      'insufficient-stock',
      'insufficient-stock',
      'insufficient-stock',
      'insufficient-stock',
      'insufficient-stock',
      'allowed',
      'allowed',
    ]);
    expect(checked[4]).toMatchObject({ detail: expect.stringContaining('0 available, 1 needed') });
    // Nothing written: the variant never stocked still has no row, the other holds what it received.
    expect((await stockOf(warehouseId)).map((row) => [row.variantId, row.quantity, row.reserved])).toEqual([[stocked, '2', '0']]);
  });

  it('does not wait for a transaction that holds the row', async () => {
    const warehouseId = await newWarehouse();
    const [variantId] = (await newProduct()).variantIds as [string];
    await receive(warehouseId, [{ variantId, quantity: '1' }]);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let taken!: () => void;
    const lockTaken = new Promise<void>((resolve) => (taken = resolve));
    // Another push's record, say, between its stock's lock and its commit.
    const holder = arrange(async (tx) => {
      await tx`select id from stock where variant_id = ${variantId} for update`;
      taken();
      await released;
    });
    await lockTaken;
    try {
      // A check that locked the row would wait here until the test times out.
      expect(await outcome(() => arrange((tx) => checkStockMoves(tx, [{ variantId, warehouseId, reservedDelta: '1' }])))).toBe('allowed');
      expect(await outcome(() => arrange((tx) => checkStockMoves(tx, [{ variantId, warehouseId, reservedDelta: '2' }])))).toMatchObject({
        code: 'insufficient-stock',
      });
    } finally {
      release();
      await holder;
    }
  });
});
