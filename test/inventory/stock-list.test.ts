import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adjustStock, type StockRow } from '../../domain/inventory/inventory.js';
import { expectProblem } from '../support/problems.js';
import { useInventorySuite } from './inventory-kit.js';

/** The stock list: permissions, order and cursors, change marks, filters and updatedSince. */
const { db, shop, call, arrange, newWarehouse, newProduct, receive, stockPage, stockOf, stockIdOf, stockEvents } = useInventorySuite();

describe('stock list', () => {
  it('needs pos.inventory.read and pos.products.read', async () => {
    const inventoryOnly = (await shop.newKey(['pos.inventory.read'], 'Inventory only')).key;
    const productsOnly = (await shop.newKey(['pos.products.read'], 'Products only')).key;
    await expectProblem(await call('GET', '/inventory/stock', undefined, inventoryOnly), 403, 'insufficient-permission');
    await expectProblem(await call('GET', '/inventory/stock', undefined, productsOnly), 403, 'insufficient-permission');
  });

  it('sorts by last stock change and pages through it with cursors bound to the parameters', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct({ variants: 5 });
    // Received in reverse order: the list follows the postings, not the variants.
    for (const variantId of [...variantIds].reverse()) await receive(warehouseId, [{ variantId, quantity: '1' }]);
    const all = await stockOf(warehouseId);
    expect(all.map((row) => row.variantId)).toEqual([...variantIds].reverse());
    const marks = all.map((row) => row.stockChangedAt);
    expect([...marks].sort()).toEqual(marks);

    const seen: StockRow[] = [];
    let page = await stockPage(`warehouseId=${warehouseId}&limit=2`);
    const pages = [page];
    while (page.nextCursor) {
      page = await stockPage(`warehouseId=${warehouseId}&limit=2&cursor=${encodeURIComponent(page.nextCursor)}`);
      pages.push(page);
    }
    for (const each of pages) seen.push(...each.data);
    expect(pages.map((each) => each.data.length)).toEqual([2, 2, 1]);
    expect(seen).toEqual(all);

    const first = await stockPage(`warehouseId=${warehouseId}&limit=2`);
    await expectProblem(
      await call('GET', `/inventory/stock?warehouseId=${await newWarehouse()}&limit=2&cursor=${encodeURIComponent(first.nextCursor!)}`),
      400,
      'invalid-cursor',
    );
    await expectProblem(await call('GET', '/inventory/stock?cursor=garbage'), 400, 'invalid-cursor');
    await expectProblem(await call('GET', '/inventory/stock?limit=101'), 400, 'validation-failed');
    await expectProblem(await call('GET', '/inventory/stock?includeDeleted=true&warehouseId=nope'), 400, 'validation-failed');
  });

  it('moves a row’s mark only when quantity or in-transit changes', async () => {
    const warehouseId = await newWarehouse('Before rename');
    const { productId, variantIds } = await newProduct({ variants: 2 });
    const [first, second] = variantIds as [string, string];
    await receive(warehouseId, [{ variantId: first, quantity: '2' }]);
    await receive(warehouseId, [{ variantId: second, quantity: '2' }]);
    const before = await stockOf(warehouseId);
    expect(before.map((row) => row.variantId)).toEqual([first, second]);
    const stockIds = [await stockIdOf(first, warehouseId), await stockIdOf(second, warehouseId)];
    const eventCount = (await stockEvents(stockIds)).length;

    await arrange(async (tx) => {
      await tx`update variants set price = 99000, barcode = '8930000000001', code = ${`renamed-${randomBytes(3).toString('hex')}`} where id = ${first}`;
      await tx`update products set name = 'Renamed product', updated_at = clock_timestamp() where id = ${productId}`;
      await tx`update warehouses set name = 'After rename' where id = ${warehouseId}`;
      await adjustStock(tx, shop.shopId, [{ variantId: first, warehouseId, reservedDelta: '1' }]);
    });
    const after = await stockOf(warehouseId);
    expect(after.map((row) => [row.variantId, row.stockChangedAt, row.warehouseName])).toEqual(
      before.map((row) => [row.variantId, row.stockChangedAt, 'After rename']),
    );
    expect(after[0]).toMatchObject({ reserved: '1', available: '1', variantCode: expect.stringMatching(/^renamed-/) });
    expect(await stockEvents(stockIds)).toHaveLength(eventCount);

    await receive(warehouseId, [{ variantId: first, quantity: '1' }]);
    const moved = await stockOf(warehouseId);
    expect(moved.map((row) => row.variantId)).toEqual([second, first]);
    expect(moved[1]!.stockChangedAt > before[0]!.stockChangedAt).toBe(true);
    expect(moved[0]!.stockChangedAt).toBe(before[1]!.stockChangedAt);
  });

  it('filters by warehouse and by variant', async () => {
    const [north, south] = [await newWarehouse('North'), await newWarehouse('South')];
    const { variantIds } = await newProduct({ variants: 2 });
    const [first, second] = variantIds as [string, string];
    await receive(north, [
      { variantId: first, quantity: '1' },
      { variantId: second, quantity: '2' },
    ]);
    await receive(south, [{ variantId: first, quantity: '3' }]);
    expect((await stockPage(`variantId=${first}`)).data.map((row) => [row.warehouseId, row.quantity]).sort()).toEqual(
      [
        [north, '1'],
        [south, '3'],
      ].sort(),
    );
    expect((await stockPage(`variantId=${first}&warehouseId=${south}`)).data.map((row) => row.quantity)).toEqual(['3']);
    expect((await stockOf(north)).map((row) => row.variantId).sort()).toEqual([first, second].sort());
  });

  it('drops the rows of a deleted warehouse, a deleted product or a removed variant', async () => {
    const [kept, closed] = [await newWarehouse('Kept'), await newWarehouse('Closed')];
    const alive = await newProduct({ variants: 2 });
    const deleted = await newProduct();
    await receive(kept, [
      { variantId: alive.variantIds[0]!, quantity: '1' },
      { variantId: alive.variantIds[1]!, quantity: '1' },
      { variantId: deleted.variantIds[0]!, quantity: '1' },
    ]);
    await receive(closed, [{ variantId: alive.variantIds[0]!, quantity: '1' }]);
    expect(await stockOf(kept)).toHaveLength(3);

    await arrange(async (tx) => {
      await tx`update warehouses set deleted_at = now() where id = ${closed}`;
      await tx`update products set deleted_at = now() where id = ${deleted.productId}`;
      await tx`update variants set removed_at = now() where id = ${alive.variantIds[1]!}`;
    });
    expect((await stockOf(kept)).map((row) => row.variantId)).toEqual([alive.variantIds[0]]);
    expect(await stockOf(closed)).toEqual([]);
    expect((await stockPage(`variantId=${alive.variantIds[0]}`)).data.map((row) => row.warehouseId)).toEqual([kept]);
  });

  it('applies updatedSince to the stock change mark, with the safety delay', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct({ variants: 3 });
    const [old, recent, fresh] = variantIds as [string, string, string];
    await receive(
      warehouseId,
      variantIds.map((variantId) => ({ variantId, quantity: '1' })),
    );
    // The trigger keeps the mark on any other update; only a replica-mode session can backdate it.
    await db.admin.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`update stock set stock_changed_at = now() - interval '60 minutes' where variant_id = ${old}`;
      await tx`update stock set stock_changed_at = now() - interval '10 minutes' where variant_id = ${recent}`;
    });
    const since = new Date(Date.now() - 30 * 60_000).toISOString();
    expect(
      (await stockPage(`warehouseId=${warehouseId}&updatedSince=${encodeURIComponent(since)}`)).data.map((row) => row.variantId),
    ).toEqual([recent]);
    expect((await stockOf(warehouseId)).map((row) => row.variantId)).toEqual([old, recent, fresh]);
  });
});
