import { Decimal } from 'decimal.js';
import { variantFacts } from '../catalog/index.js';
import { describeAbsent, Problem, refuseAbsent, type AbsentReference, type FieldError } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';
import { adjustStock, type StockMove } from './inventory.js';

/** Stock documents (receipt, issue, adjustment, transfer): a draft, then posted once; a transfer is received at its target. */
export type DocumentKind = 'receipt' | 'issue' | 'adjustment' | 'transfer';
export type DocumentStatus = 'draft' | 'posted' | 'received';

export interface InventoryDocument {
  id: string;
  kind: DocumentKind;
  status: DocumentStatus;
  warehouseId: string;
  targetWarehouseId: string | null;
  note: string | null;
  lines: { variantId: string; quantity: string }[];
  createdAt: string;
  postedAt: string | null;
  receivedAt: string | null;
}

export interface NewInventoryDocument {
  kind: DocumentKind;
  warehouseId: string;
  targetWarehouseId?: string | null;
  note?: string | null;
  lines: { variantId: string; quantity: string }[];
}

export const MAX_DOCUMENT_LINES = 500;

/** `GET /inventory/documents/{id}`; 404 for another shop's id. */
export async function getInventoryDocument(tx: Tx, id: string): Promise<InventoryDocument> {
  const [document] = await tx<InventoryDocument[]>`
    select d.id, d.kind, d.status, d.warehouse_id, d.target_warehouse_id, d.note,
      coalesce((select json_agg(json_build_object('variantId', l.variant_id, 'quantity', api_decimal(l.quantity)) order by l.position)
                from inventory_document_lines l where l.document_id = d.id), '[]') as lines,
      api_time(d.created_at) as created_at, api_time(d.posted_at) as posted_at, api_time(d.received_at) as received_at
    from inventory_documents d where d.id = ${id}`;
  if (!document) throw new Problem('not-found', `no inventory document ${id}`);
  return document;
}

/**
 * A draft document. 400 `validation-failed` (with field paths) for: a target warehouse missing on a
 * transfer, present on another kind, or equal to the source; a quantity of the wrong sign for the
 * kind (receipt, issue, transfer: > 0; adjustment: a non-zero signed delta); a variant named twice;
 * a warehouse or variant not in the shop, a deleted warehouse, a variant of a deleted product, a
 * service. 422 `variant-removed` for a variant removed from its product. Nothing moves until posted.
 */
export async function createInventoryDocument(tx: Tx, shopId: string, input: NewInventoryDocument): Promise<InventoryDocument> {
  await assertUsable(tx, input, 'create');
  const [created] = await tx<{ id: string }[]>`
    insert into inventory_documents (shop_id, kind, warehouse_id, target_warehouse_id, note)
    values (${shopId}, ${input.kind}, ${input.warehouseId}, ${input.targetWarehouseId ?? null}, ${input.note ?? null})
    returning id`;
  await tx`
    insert into inventory_document_lines (shop_id, document_id, variant_id, quantity, position)
    select ${shopId}, ${created!.id}, l.variant_id, l.quantity, l.position
    from unnest(${input.lines.map((line) => line.variantId)}::uuid[], ${input.lines.map((line) => new Decimal(line.quantity).toFixed())}::numeric[])
      with ordinality as l(variant_id, quantity, position)`;
  return getInventoryDocument(tx, created!.id);
}

/**
 * Posts a draft once, atomically (the document row is locked): receipt adds to the warehouse's
 * quantity, issue takes from it, adjustment adds its signed delta, transfer takes from the source's
 * quantity and adds to the target's in-transit amount. A posted document: 409
 * `document-already-posted`. Short stock: 422 `insufficient-stock`, nothing changed.
 */
export async function postInventoryDocument(tx: Tx, shopId: string, id: string): Promise<InventoryDocument> {
  const document = await lockedDocument(tx, id);
  if (document.status !== 'draft')
    throw new Problem('document-already-posted', `inventory document ${id} was already posted at ${document.postedAt}`);
  await assertUsable(tx, document, 'post');
  const moves = document.lines.flatMap((line): StockMove[] => {
    const quantity = new Decimal(line.quantity);
    switch (document.kind) {
      case 'receipt':
      case 'adjustment':
        return [{ variantId: line.variantId, warehouseId: document.warehouseId, quantityDelta: quantity.toFixed() }];
      case 'issue':
        return [{ variantId: line.variantId, warehouseId: document.warehouseId, quantityDelta: quantity.neg().toFixed() }];
      case 'transfer':
        return [
          { variantId: line.variantId, warehouseId: document.warehouseId, quantityDelta: quantity.neg().toFixed() },
          { variantId: line.variantId, warehouseId: document.targetWarehouseId!, inTransitDelta: quantity.toFixed() },
        ];
    }
  });
  await adjustStock(tx, shopId, moves);
  await tx`update inventory_documents set status = 'posted', posted_at = now() where id = ${id}`;
  return getInventoryDocument(tx, id);
}

/**
 * A posted transfer arrives: the target's in-transit amount becomes quantity, once. Not a transfer,
 * or not posted yet: 409 `conflict`; received already: 409 `document-already-posted`.
 */
export async function receiveInventoryDocument(tx: Tx, shopId: string, id: string): Promise<InventoryDocument> {
  const document = await lockedDocument(tx, id);
  if (document.kind !== 'transfer')
    throw new Problem('conflict', `inventory document ${id} is a ${document.kind}; only a transfer is received`);
  if (document.status === 'draft') throw new Problem('conflict', `transfer ${id} is a draft; post it before receiving it`);
  if (document.status === 'received')
    throw new Problem('document-already-posted', `transfer ${id} was already received at ${document.receivedAt}`);
  await adjustStock(
    tx,
    shopId,
    document.lines.map((line) => ({
      variantId: line.variantId,
      warehouseId: document.targetWarehouseId!,
      quantityDelta: line.quantity,
      inTransitDelta: new Decimal(line.quantity).neg().toFixed(),
    })),
  );
  await tx`update inventory_documents set status = 'received', received_at = now() where id = ${id}`;
  return getInventoryDocument(tx, id);
}

async function lockedDocument(tx: Tx, id: string): Promise<InventoryDocument> {
  await tx`select id from inventory_documents where id = ${id} for update`;
  return getInventoryDocument(tx, id);
}

/**
 * The rules a document must meet when created, checked again when posted (a warehouse may have
 * been deleted, a variant removed, meanwhile). Ids that name nothing in the shop come first and
 * alone, as `detail` only (a business rejection, spec Errors); the rest are field `errors[]`. On
 * posting there is no body to point into, so either kind is 409 `conflict` instead of 400.
 */
async function assertUsable(tx: Tx, input: NewInventoryDocument, stage: 'create' | 'post'): Promise<void> {
  const warehouseSlots = warehouseSlotsOf(input);
  const warehouses = await tx<StoredWarehouse[]>`
    select id, deleted_at is not null as deleted from warehouses where id = any(${warehouseSlots.map((slot) => slot.id)}::uuid[])`;
  const variants = await tx<StoredVariant[]>`
    select v.id, v.removed, v.product_deleted, v.service
    from ${variantFacts(tx)} v
    where v.id = any(${[...new Set(input.lines.map((line) => line.variantId))]}::uuid[])`;

  const absent: AbsentReference[] = [
    ...warehouseSlots
      .filter((slot) => !warehouses.some((warehouse) => warehouse.id === slot.id))
      .map((slot) => ({ ...slot, noun: 'warehouse' })),
    ...input.lines.flatMap((line, index) =>
      variants.some((variant) => variant.id === line.variantId)
        ? []
        : [{ path: `lines.${index}.variantId`, noun: 'variant', id: line.variantId }],
    ),
  ];
  if (absent.length > 0) {
    if (stage === 'post') throw noLongerPostable(describeAbsent(absent));
    refuseAbsent(absent);
  }

  const errors = [
    ...shapeErrors(input),
    ...deletedWarehouseErrors(warehouseSlots, warehouses),
    ...unstockableVariantErrors(input.lines, variants),
  ];
  if (errors.length > 0) {
    if (stage === 'post') throw noLongerPostable(errors.map((error) => `${error.path} ${error.message}`).join('; '));
    throw new Problem('validation-failed', 'The inventory document is invalid', { errors });
  }
  const removed = input.lines
    .filter((line) => variants.find((variant) => variant.id === line.variantId)!.removed)
    .map((line) => line.variantId);
  if (removed.length > 0) throw new Problem('variant-removed', `variants removed from their product: ${removed.join(', ')}`);
}

interface StoredWarehouse {
  id: string;
  deleted: boolean;
}

interface StoredVariant {
  id: string;
  removed: boolean;
  productDeleted: boolean;
  service: boolean;
}

function noLongerPostable(why: string): Problem {
  return new Problem('conflict', `the document can no longer be posted: ${why}`);
}

/** The warehouses the document names: the source, and a target that differs from it. */
function warehouseSlotsOf(input: NewInventoryDocument): { path: string; id: string }[] {
  const target = input.targetWarehouseId ?? null;
  return [
    { path: 'warehouseId', id: input.warehouseId },
    ...(target === null || target === input.warehouseId ? [] : [{ path: 'targetWarehouseId', id: target }]),
  ];
}

/** What is wrong with the body itself: the target warehouse for the kind, the quantities, a variant on two lines. */
function shapeErrors(input: NewInventoryDocument): FieldError[] {
  const errors: FieldError[] = [];
  const target = input.targetWarehouseId ?? null;
  if (input.kind === 'transfer') {
    if (target === null) errors.push({ path: 'targetWarehouseId', message: 'required for a transfer' });
    else if (target === input.warehouseId) errors.push({ path: 'targetWarehouseId', message: 'must differ from warehouseId' });
  } else if (target !== null) {
    errors.push({ path: 'targetWarehouseId', message: 'only a transfer has a target warehouse' });
  }
  const seen = new Set<string>();
  input.lines.forEach((line, index) => {
    const quantity = new Decimal(line.quantity);
    if (quantity.decimalPlaces() > 3) errors.push({ path: `lines.${index}.quantity`, message: 'at most three decimals' });
    else if (input.kind === 'adjustment' ? quantity.isZero() : quantity.lte(0)) {
      errors.push({
        path: `lines.${index}.quantity`,
        message: input.kind === 'adjustment' ? 'must not be zero (a signed change)' : 'must be greater than zero',
      });
    }
    if (seen.has(line.variantId)) errors.push({ path: `lines.${index}.variantId`, message: 'the variant is already on another line' });
    seen.add(line.variantId);
  });
  return errors;
}

/** Warehouses of the shop that were deleted (every slot names a stored warehouse by now). */
function deletedWarehouseErrors(slots: readonly { path: string; id: string }[], warehouses: readonly StoredWarehouse[]): FieldError[] {
  return slots
    .filter((slot) => warehouses.find((warehouse) => warehouse.id === slot.id)!.deleted)
    .map((slot) => ({ path: slot.path, message: 'the warehouse is deleted' }));
}

/** Variants of the shop that cannot hold stock: of a deleted product, or a service. */
function unstockableVariantErrors(lines: NewInventoryDocument['lines'], variants: readonly StoredVariant[]): FieldError[] {
  return lines.flatMap((line, index) => {
    const variant = variants.find((found) => found.id === line.variantId)!;
    const path = `lines.${index}.variantId`;
    if (variant.productDeleted) return [{ path, message: "the variant's product is deleted" }];
    if (variant.service) return [{ path, message: 'a service has no stock' }];
    return [];
  });
}
