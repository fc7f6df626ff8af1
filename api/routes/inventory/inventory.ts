import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createInventoryDocument,
  getInventoryDocument,
  listStock,
  MAX_DOCUMENT_LINES,
  postInventoryDocument,
  receiveInventoryDocument,
} from '../../../domain/inventory/index.js';
import { respondIdempotently } from '../../plugins/idempotency.js';
import { cursorBinding, type RouteDeps } from '../../route-deps.js';
import { Decimal, IdParams, Note, SignedDecimal, Timestamp } from '../../../domain/kernel/index.js';
import { pageOf, syncListQuery } from '../../schemas/list-query.js';
import { IDEMPOTENCY_PROBLEMS, LIST_PROBLEMS, READ_PROBLEMS, WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const Quantity = Decimal.describe('Decimal string, at most three decimals');

const StockRow = z
  .object({
    variantId: z.uuid(),
    productId: z.uuid(),
    warehouseId: z.uuid(),
    warehouseName: z.string(),
    variantCode: z.string(),
    quantity: Quantity,
    reserved: Quantity.describe('Held by open orders'),
    available: Quantity.describe('quantity − reserved'),
    inTransit: Quantity.describe('Arriving at the warehouse (posted transfers not yet received)'),
    stockChangedAt: Timestamp.describe('Last change of quantity or inTransit; the sort key and the updatedSince mark'),
  })
  .meta({ id: 'StockRow' });

const DocumentKind = z.enum(['receipt', 'issue', 'adjustment', 'transfer']);

const InventoryDocument = z
  .object({
    id: z.uuid(),
    kind: DocumentKind,
    status: z.enum(['draft', 'posted', 'received']).describe('received: a transfer whose goods arrived at the target'),
    warehouseId: z.uuid(),
    targetWarehouseId: z.uuid().nullable().describe('Transfers only'),
    note: z.string().nullable(),
    lines: z.array(z.object({ variantId: z.uuid(), quantity: Quantity })),
    createdAt: Timestamp,
    postedAt: Timestamp.nullable(),
    receivedAt: Timestamp.nullable(),
  })
  .meta({ id: 'InventoryDocument' });

/** The quantity `0`, `-0.00`…: no document line moves nothing. */
const ZERO = '^-?0+(\\.0+)?$';
// Each rule requires `kind` (as the object does), so the rules exclude each other by it.
const kindRule = (kinds: string[], target: object, quantity: object, required: string[] = []) => ({
  properties: { kind: { enum: kinds }, targetWarehouseId: target, lines: { items: { properties: { quantity } } } },
  required: ['kind', ...required],
});

const NewInventoryDocument = z
  .strictObject({
    kind: DocumentKind,
    warehouseId: z.uuid(),
    targetWarehouseId: z.uuid().nullish().describe('Required for a transfer, and different from warehouseId; absent otherwise'),
    note: Note.nullish(),
    lines: z
      .array(
        z.strictObject({
          variantId: z.uuid(),
          quantity: SignedDecimal.describe('receipt, issue, transfer: greater than zero; adjustment: a non-zero signed change'),
        }),
      )
      .min(1)
      .max(MAX_DOCUMENT_LINES),
  })
  // In the document only (the domain refuses the rest, each with its path): the target warehouse and
  // the quantity's sign by kind, so a schema-valid document is one the API takes.
  .meta({
    oneOf: [
      kindRule(['receipt', 'issue'], { type: 'null' }, { not: { pattern: `${ZERO}|^-` } }),
      kindRule(['transfer'], { type: 'string' }, { not: { pattern: `${ZERO}|^-` } }, ['targetWarehouseId']),
      kindRule(['adjustment'], { type: 'null' }, { not: { pattern: ZERO } }),
    ],
  });

const tags = ['Inventory'];

/** Stock and inventory documents: a thin HTTP shape over domain/inventory. */
export const inventoryRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  app.get(
    '/inventory/stock',
    {
      config: { permissions: ['pos.inventory.read', 'pos.products.read'] },
      schema: {
        operationId: 'listStock',
        tags,
        summary: 'Stock of each variant in each warehouse, sorted by last stock change',
        description:
          'The mark (stockChangedAt) moves only when quantity or inTransit changes. Rows of a removed variant, a deleted product or a deleted warehouse leave the list. updatedSince filters by stockChangedAt.',
        querystring: syncListQuery.extend({
          warehouseId: z.uuid().optional(),
          variantId: z.uuid().optional(),
        }),
        response: { 200: pageOf(StockRow), ...problemResponses(LIST_PROBLEMS) },
      },
    },
    (request) =>
      request.inShop((tx) =>
        listStock(tx, request.query, cursorBinding(deps, request, 'inventory-stock'), request.auth.shop.recomputeCeilingSeconds),
      ),
  );

  app.post(
    '/inventory/documents',
    {
      config: { permissions: ['pos.inventory.update'] },
      schema: {
        operationId: 'createInventoryDocument',
        tags,
        summary: 'Draft an inventory document; stock moves when it is posted',
        body: NewInventoryDocument,
        response: { 201: InventoryDocument, ...problemResponses(WRITE_PROBLEMS, 'not-found', 'variant-removed', IDEMPOTENCY_PROBLEMS) },
      },
    },
    (request, reply) =>
      respondIdempotently(deps.sql, deps.publicBaseUrl, request, reply, 201, (tx) =>
        createInventoryDocument(tx, request.auth.shop.id, request.body),
      ),
  );

  app.get(
    '/inventory/documents/:id',
    {
      config: { permissions: ['pos.inventory.read'] },
      schema: {
        operationId: 'getInventoryDocument',
        summary: 'An inventory document with its lines',
        tags,
        params: IdParams,
        response: { 200: InventoryDocument, ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => getInventoryDocument(tx, request.params.id)),
  );

  app.post(
    '/inventory/documents/:id/post',
    {
      config: { permissions: ['pos.inventory.update'] },
      schema: {
        operationId: 'postInventoryDocument',
        tags,
        summary: 'Post a draft once: its stock moves now (again: 409 document-already-posted)',
        params: IdParams,
        response: {
          200: InventoryDocument,
          ...problemResponses(WRITE_PROBLEMS, 'not-found', 'document-already-posted', 'conflict', 'insufficient-stock', 'variant-removed'),
        },
      },
    },
    (request) => request.inShop((tx) => postInventoryDocument(tx, request.auth.shop.id, request.params.id)),
  );

  app.post(
    '/inventory/documents/:id/receive',
    {
      config: { permissions: ['pos.inventory.update'] },
      schema: {
        operationId: 'receiveInventoryDocument',
        tags,
        summary: "A posted transfer arrives: the target's inTransit becomes quantity, once",
        params: IdParams,
        response: {
          200: InventoryDocument,
          ...problemResponses(WRITE_PROBLEMS, 'not-found', 'document-already-posted', 'conflict', 'insufficient-stock'),
        },
      },
    },
    (request) => request.inShop((tx) => receiveInventoryDocument(tx, request.auth.shop.id, request.params.id)),
  );
};
