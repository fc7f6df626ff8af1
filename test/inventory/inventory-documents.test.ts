import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adjustStock } from '../../domain/inventory/inventory.js';
import type { InventoryDocument as Document } from '../../domain/inventory/inventory-documents.js';
import { bearer, createShopFixture } from '../support/fixtures.js';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { useInventorySuite } from './inventory-kit.js';

/** Inventory documents: drafts, validation, posting once, receipts, issues, adjustments and transfers. */
const {
  db,
  api,
  shop,
  keys,
  call,
  arrange,
  newWarehouse,
  newProduct,
  createDocument,
  postDocument,
  receive,
  stockOf,
  stockIdOf,
  stockEvents,
  documentCount,
} = useInventorySuite();

describe('inventory documents', () => {
  it('creates a draft with its lines in order, and moves nothing until it is posted', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct({ variants: 2 });
    const created = await createDocument({
      kind: 'receipt',
      warehouseId,
      note: 'First delivery',
      lines: [
        { variantId: variantIds[1], quantity: '10.000' },
        { variantId: variantIds[0], quantity: '2.50' },
      ],
    });
    expect(created).toEqual({
      id: expect.any(String),
      kind: 'receipt',
      status: 'draft',
      warehouseId,
      targetWarehouseId: null,
      note: 'First delivery',
      lines: [
        { variantId: variantIds[1], quantity: '10' },
        { variantId: variantIds[0], quantity: '2.5' },
      ],
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      postedAt: null,
      receivedAt: null,
    });
    const read = await call('GET', `/inventory/documents/${created.id}`);
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(created);
    expect(await stockOf(warehouseId)).toEqual([]);
  });

  it('refuses invalid documents with 400 validation-failed and the field path, creating nothing', async () => {
    const warehouseId = await newWarehouse();
    const otherWarehouseId = await newWarehouse('Other');
    const deletedWarehouseId = await newWarehouse('Closed');
    await arrange((tx) => tx`update warehouses set deleted_at = now() where id = ${deletedWarehouseId}`);
    const { variantIds } = await newProduct({ variants: 2 });
    const [variantId, secondId] = variantIds as [string, string];
    const service = await newProduct({ type: 'service' });
    const deletedProduct = await newProduct();
    await arrange((tx) => tx`update products set deleted_at = now() where id = ${deletedProduct.productId}`);
    const line = (quantity: string, id = variantId) => ({ variantId: id, quantity });
    const before = await documentCount();

    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'transfer', warehouseId, lines: [line('1')] }, 'targetWarehouseId'],
      [{ kind: 'transfer', warehouseId, targetWarehouseId: warehouseId, lines: [line('1')] }, 'targetWarehouseId'],
      [{ kind: 'receipt', warehouseId, targetWarehouseId: otherWarehouseId, lines: [line('1')] }, 'targetWarehouseId'],
      [{ kind: 'receipt', warehouseId, lines: [line('0')] }, 'lines.0.quantity'],
      [{ kind: 'issue', warehouseId, lines: [line('1'), line('-1', secondId)] }, 'lines.1.quantity'],
      [{ kind: 'transfer', warehouseId, targetWarehouseId: otherWarehouseId, lines: [line('-2')] }, 'lines.0.quantity'],
      [{ kind: 'adjustment', warehouseId, lines: [line('-0.000')] }, 'lines.0.quantity'],
      [{ kind: 'receipt', warehouseId, lines: [line('1.2345')] }, 'lines.0.quantity'],
      [{ kind: 'receipt', warehouseId, lines: [line('1e3')] }, 'lines.0.quantity'],
      [{ kind: 'receipt', warehouseId, lines: [{ variantId, quantity: 5 }] }, 'lines.0.quantity'],
      [{ kind: 'receipt', warehouseId, lines: [line('1', service.variantIds[0])] }, 'lines.0.variantId'],
      [{ kind: 'receipt', warehouseId, lines: [line('1', deletedProduct.variantIds[0])] }, 'lines.0.variantId'],
      [{ kind: 'receipt', warehouseId, lines: [line('1'), line('2')] }, 'lines.1.variantId'],
      [{ kind: 'receipt', warehouseId: deletedWarehouseId, lines: [line('1')] }, 'warehouseId'],
      [{ kind: 'receipt', warehouseId, lines: [] }, 'lines'],
      [{ kind: 'receipt', warehouseId, lines: Array.from({ length: 501 }, () => line('1')) }, 'lines'],
      [{ kind: 'receipt', warehouseId, note: 'x'.repeat(5001), lines: [line('1')] }, 'note'],
      [{ kind: 'count', warehouseId, lines: [line('1')] }, 'kind'],
    ];
    for (const [body, path] of cases) {
      const problem = await expectProblem(await call('POST', '/inventory/documents', body), 400, 'validation-failed');
      expect(problem.errors, `${JSON.stringify(body).slice(0, 200)} → ${path}`).toContainEqual({ path, message: expect.any(String) });
    }
    await expectProblem(
      await call('POST', '/inventory/documents', { kind: 'receipt', warehouseId, lines: [line('1')], extra: true }),
      400,
      'validation-failed',
    );
    expect(await documentCount()).toBe(before);
  });

  it('refuses warehouses and variants absent from the shop with 400, detail only, before the field errors, creating nothing', async () => {
    const warehouseId = await newWarehouse();
    const [variantId] = (await newProduct()).variantIds as [string];
    const other = await createShopFixture(db.app);
    const foreignVariant = (await newProduct({ shopId: other.shopId })).variantIds[0]!;
    const foreignWarehouse = await newWarehouse('Foreign', other.shopId);
    const missing = randomUUID();
    const line = (quantity: string, id = variantId) => ({ variantId: id, quantity });
    const before = await documentCount();

    const cases: [Record<string, unknown>, string, string][] = [
      [{ kind: 'receipt', warehouseId: missing, lines: [line('1')] }, 'warehouseId', missing],
      [{ kind: 'receipt', warehouseId: foreignWarehouse, lines: [line('1')] }, 'warehouseId', foreignWarehouse],
      [{ kind: 'transfer', warehouseId, targetWarehouseId: foreignWarehouse, lines: [line('1')] }, 'targetWarehouseId', foreignWarehouse],
      [{ kind: 'receipt', warehouseId, lines: [line('1', missing)] }, 'lines.0.variantId', missing],
      // One variant of the shop, one of another: only the second line is named.
      [{ kind: 'receipt', warehouseId, lines: [line('1'), line('1', foreignVariant)] }, 'lines.1.variantId', foreignVariant],
      // A field error (a variant on two lines) beside an absent variant: the absent reference alone is reported.
      [{ kind: 'receipt', warehouseId, lines: [line('1'), line('1'), line('1', missing)] }, 'lines.2.variantId', missing],
    ];
    for (const [body, path, id] of cases) {
      const problem = await expectAbsentReference(await call('POST', '/inventory/documents', body), path, id);
      expect(problem.detail, path).not.toContain(variantId);
    }
    expect(await documentCount()).toBe(before);
  });

  it('refuses a variant removed from its product with 422 variant-removed', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct();
    await arrange((tx) => tx`update variants set removed_at = now() where id = ${variantIds[0]!}`);
    await expectProblem(
      await call('POST', '/inventory/documents', { kind: 'receipt', warehouseId, lines: [{ variantId: variantIds[0], quantity: '1' }] }),
      422,
      'variant-removed',
    );
  });

  it('replays a creation sent again with the same Idempotency-Key', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct();
    const body = { kind: 'receipt', warehouseId, lines: [{ variantId: variantIds[0], quantity: '1' }] };
    const headers = { ...bearer(keys.inventory), 'content-type': 'application/json', 'idempotency-key': randomUUID() };
    const send = () => fetch(`${api.baseUrl}/api/open/v1/inventory/documents`, { method: 'POST', headers, body: JSON.stringify(body) });
    const first = await send();
    const again = await send();
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
  });

  it('checks the references again when posting', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct({ variants: 2 });
    const [first, second] = variantIds as [string, string];
    const draftA = await createDocument({ kind: 'receipt', warehouseId, lines: [{ variantId: first, quantity: '1' }] });
    const draftB = await createDocument({ kind: 'receipt', warehouseId, lines: [{ variantId: second, quantity: '1' }] });
    await arrange((tx) => tx`update variants set removed_at = now() where id = ${second}`);
    await expectProblem(await call('POST', `/inventory/documents/${draftB.id}/post`), 422, 'variant-removed');
    await arrange((tx) => tx`update warehouses set deleted_at = now() where id = ${warehouseId}`);
    await expectProblem(await call('POST', `/inventory/documents/${draftA.id}/post`), 409, 'conflict');
    expect(await arrange((tx) => tx`select 1 from stock where warehouse_id = ${warehouseId}`)).toHaveLength(0);
  });

  it('answers an unknown or foreign document with 404, and checks permissions', async () => {
    const other = await createShopFixture(db.app);
    const foreignWarehouse = await newWarehouse('Foreign', other.shopId);
    const foreign = await newProduct({ shopId: other.shopId });
    const [document] = await withShop(
      db.app,
      other.shopId,
      (tx) => tx<{ id: string }[]>`
      insert into inventory_documents (shop_id, kind, warehouse_id) values (${other.shopId}, 'receipt', ${foreignWarehouse}) returning id`,
    );
    await withShop(
      db.app,
      other.shopId,
      (tx) => tx`
      insert into inventory_document_lines (shop_id, document_id, variant_id, quantity) values (${other.shopId}, ${document!.id}, ${foreign.variantIds[0]!}, 1)`,
    );
    await expectProblem(await call('GET', `/inventory/documents/${document!.id}`), 404, 'not-found');
    await expectProblem(await call('POST', `/inventory/documents/${document!.id}/post`), 404, 'not-found');
    await expectProblem(await call('GET', `/inventory/documents/${randomUUID()}`), 404, 'not-found');
    const [untouched] = await withShop(
      db.app,
      other.shopId,
      (tx) => tx<{ status: string }[]>`select status from inventory_documents where id = ${document!.id}`,
    );
    expect(untouched!.status).toBe('draft');

    const readOnly = (await shop.newKey(['pos.inventory.read', 'pos.products.read'], 'Read only')).key;
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct();
    const mine = await createDocument({ kind: 'receipt', warehouseId, lines: [{ variantId: variantIds[0], quantity: '1' }] });
    expect((await call('GET', `/inventory/documents/${mine.id}`, undefined, readOnly)).status).toBe(200);
    await expectProblem(
      await call('POST', '/inventory/documents', { kind: 'receipt', warehouseId, lines: [] }, readOnly),
      403,
      'insufficient-permission',
    );
    await expectProblem(await call('POST', `/inventory/documents/${mine.id}/post`, undefined, readOnly), 403, 'insufficient-permission');
    await expectProblem(await call('POST', `/inventory/documents/${mine.id}/receive`, undefined, readOnly), 403, 'insufficient-permission');
    const writeOnly = (await shop.newKey(['pos.inventory.update'], 'Write only')).key;
    await expectProblem(await call('GET', `/inventory/documents/${mine.id}`, undefined, writeOnly), 403, 'insufficient-permission');
  });

  it('posts a receipt once, emitting one inventory.stock_changed per stock row; posting again is 409 document-already-posted', async () => {
    const warehouseId = await newWarehouse('Main');
    const { productId, variantIds } = await newProduct({ variants: 2 });
    const [first, second] = variantIds as [string, string];
    const draft = await createDocument({
      kind: 'receipt',
      warehouseId,
      lines: [
        { variantId: first, quantity: '10' },
        { variantId: second, quantity: '0.125' },
      ],
    });
    const posted = await postDocument(draft.id);
    expect(posted).toEqual({ ...draft, status: 'posted', postedAt: expect.stringMatching(/Z$/) });

    const rows = await stockOf(warehouseId);
    const byVariant = new Map(rows.map((row) => [row.variantId, row]));
    const codes = await arrange((tx) => tx<{ id: string; code: string }[]>`select id, code from variants where product_id = ${productId}`);
    for (const [variantId, quantity] of [
      [first, '10'],
      [second, '0.125'],
    ] as const) {
      expect(byVariant.get(variantId)).toEqual({
        variantId,
        productId,
        warehouseId,
        warehouseName: 'Main',
        variantCode: codes.find((code) => code.id === variantId)!.code,
        quantity,
        reserved: '0',
        available: quantity,
        inTransit: '0',
        stockChangedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    }
    const stockIds = [await stockIdOf(first, warehouseId), await stockIdOf(second, warehouseId)];
    const events = await stockEvents(stockIds);
    expect(
      events
        .map((event) => ({ type: event.type, resourceId: event.resourceId, changes: event.changes }))
        .sort((a, b) => a.resourceId.localeCompare(b.resourceId)),
    ).toEqual(
      stockIds
        .map((resourceId) => ({ type: 'inventory.stock_changed', resourceId, changes: null }))
        .sort((a, b) => a.resourceId.localeCompare(b.resourceId)),
    );
    for (const event of events) expect(event.data).toEqual(byVariant.get(event.data.variantId));

    await expectProblem(await call('POST', `/inventory/documents/${draft.id}/post`), 409, 'document-already-posted');
    expect(await stockOf(warehouseId)).toEqual(rows);
    expect(await stockEvents(stockIds)).toHaveLength(2);
  });

  it('posts concurrent duplicates of one post exactly once', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct();
    const draft = await createDocument({ kind: 'receipt', warehouseId, lines: [{ variantId: variantIds[0], quantity: '3' }] });
    const answers = await Promise.all(Array.from({ length: 4 }, () => call('POST', `/inventory/documents/${draft.id}/post`)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409, 409]);
    expect((await stockOf(warehouseId)).map((row) => row.quantity)).toEqual(['3']);
  });

  it('refuses an issue beyond available stock with 422 insufficient-stock, changing nothing', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct({ variants: 2 });
    const [stocked, empty] = variantIds as [string, string];
    await receive(warehouseId, [{ variantId: stocked, quantity: '5' }]);
    await arrange((tx) => adjustStock(tx, shop.shopId, [{ variantId: stocked, warehouseId, reservedDelta: '2' }]));
    const before = await stockOf(warehouseId);
    const stockId = await stockIdOf(stocked, warehouseId);
    const eventsBefore = await stockEvents([stockId]);

    // One line fits, the other has no stock at all: the whole posting is refused.
    const mixed = await createDocument({
      kind: 'issue',
      warehouseId,
      lines: [
        { variantId: stocked, quantity: '1' },
        { variantId: empty, quantity: '1' },
      ],
    });
    await expectProblem(await call('POST', `/inventory/documents/${mixed.id}/post`), 422, 'insufficient-stock');
    // 5 on hand, 2 reserved: 3 available.
    const tooMuch = await createDocument({ kind: 'issue', warehouseId, lines: [{ variantId: stocked, quantity: '3.001' }] });
    await expectProblem(await call('POST', `/inventory/documents/${tooMuch.id}/post`), 422, 'insufficient-stock');

    expect(await stockOf(warehouseId)).toEqual(before);
    expect(await stockEvents([stockId])).toEqual(eventsBefore);
    expect((await (await call('GET', `/inventory/documents/${mixed.id}`)).json()) as Document).toMatchObject({
      status: 'draft',
      postedAt: null,
    });
    expect(await arrange((tx) => tx`select 1 from stock where variant_id = ${empty}`)).toHaveLength(0);

    const exact = await createDocument({ kind: 'issue', warehouseId, lines: [{ variantId: stocked, quantity: '3' }] });
    await postDocument(exact.id);
    expect(await stockOf(warehouseId)).toEqual([
      expect.objectContaining({ variantId: stocked, quantity: '2', reserved: '2', available: '0' }),
    ]);
  });

  it('applies an adjustment as a signed delta that may not take quantity below reserved', async () => {
    const warehouseId = await newWarehouse();
    const { variantIds } = await newProduct();
    const variantId = variantIds[0]!;
    await receive(warehouseId, [{ variantId, quantity: '5' }]);
    await arrange((tx) => adjustStock(tx, shop.shopId, [{ variantId, warehouseId, reservedDelta: '2' }]));

    const down = await createDocument({ kind: 'adjustment', warehouseId, lines: [{ variantId, quantity: '-3' }] });
    await postDocument(down.id);
    expect(await stockOf(warehouseId)).toEqual([expect.objectContaining({ quantity: '2', reserved: '2', available: '0' })]);
    const belowReserved = await createDocument({ kind: 'adjustment', warehouseId, lines: [{ variantId, quantity: '-0.001' }] });
    await expectProblem(await call('POST', `/inventory/documents/${belowReserved.id}/post`), 422, 'insufficient-stock');
    const up = await createDocument({ kind: 'adjustment', warehouseId, lines: [{ variantId, quantity: '1.5' }] });
    await postDocument(up.id);
    expect(await stockOf(warehouseId)).toEqual([
      expect.objectContaining({ quantity: '3.5', reserved: '2', available: '1.5', inTransit: '0' }),
    ]);
  });

  it('posts a transfer into the target’s in-transit amount, then receives it into quantity, once', async () => {
    const source = await newWarehouse('Source');
    const target = await newWarehouse('Target');
    const { variantIds } = await newProduct();
    const variantId = variantIds[0]!;
    await receive(source, [{ variantId, quantity: '10' }]);

    const tooMuch = await createDocument({
      kind: 'transfer',
      warehouseId: source,
      targetWarehouseId: target,
      lines: [{ variantId, quantity: '10.5' }],
    });
    await expectProblem(await call('POST', `/inventory/documents/${tooMuch.id}/post`), 422, 'insufficient-stock');

    const transfer = await createDocument({
      kind: 'transfer',
      warehouseId: source,
      targetWarehouseId: target,
      note: 'Restock the shop',
      lines: [{ variantId, quantity: '4' }],
    });
    expect(transfer).toMatchObject({ kind: 'transfer', status: 'draft', warehouseId: source, targetWarehouseId: target });
    await expectProblem(await call('POST', `/inventory/documents/${transfer.id}/receive`), 409, 'conflict');

    const sourceStockId = await stockIdOf(variantId, source);
    const eventsBeforePost = (await stockEvents([sourceStockId])).length;
    expect(await postDocument(transfer.id)).toMatchObject({ status: 'posted', receivedAt: null });
    const [sourceRow] = await stockOf(source);
    const [inTransitRow] = await stockOf(target);
    expect(sourceRow).toMatchObject({ quantity: '6', available: '6', inTransit: '0' });
    expect(inTransitRow).toMatchObject({
      warehouseId: target,
      warehouseName: 'Target',
      quantity: '0',
      reserved: '0',
      available: '0',
      inTransit: '4',
    });
    const targetStockId = await stockIdOf(variantId, target);
    const postEvents = (await stockEvents([sourceStockId, targetStockId])).slice(eventsBeforePost);
    expect(postEvents.map((event) => [event.resourceId, event.changes, event.data]).sort()).toEqual(
      [
        [sourceStockId, null, sourceRow],
        [targetStockId, null, inTransitRow],
      ].sort(),
    );

    const received = await call('POST', `/inventory/documents/${transfer.id}/receive`);
    expect(received.status).toBe(200);
    expect(await received.json()).toMatchObject({ status: 'received', postedAt: expect.any(String), receivedAt: expect.any(String) });
    const [arrived] = await stockOf(target);
    expect(arrived).toMatchObject({ quantity: '4', available: '4', inTransit: '0' });
    expect(await stockOf(source)).toEqual([sourceRow]);
    const receiveEvents = (await stockEvents([sourceStockId, targetStockId])).slice(eventsBeforePost + 2);
    expect(receiveEvents.map((event) => [event.type, event.resourceId, event.changes, event.data])).toEqual([
      ['inventory.stock_changed', targetStockId, null, arrived],
    ]);

    await expectProblem(await call('POST', `/inventory/documents/${transfer.id}/receive`), 409, 'document-already-posted');
    await expectProblem(await call('POST', `/inventory/documents/${transfer.id}/post`), 409, 'document-already-posted');
    expect(await stockOf(target)).toEqual([arrived]);

    const receipt = await receive(source, [{ variantId, quantity: '1' }]);
    await expectProblem(await call('POST', `/inventory/documents/${receipt.id}/receive`), 409, 'conflict');
  });
});
