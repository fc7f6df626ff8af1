import { Decimal } from 'decimal.js';
import { shopRoles } from '../access/index.js';
import { variantsForOrderLines } from '../catalog/index.js';
import { isCustomerBlocked, liveCustomers } from '../customers/index.js';
import { normalizeAddress, type Address, type AddressInput } from '../geography/index.js';
import { liveWarehouses } from '../inventory/index.js';
import type { Fragment, Tx } from '../kernel/index.js';
import { Problem, refuseAbsent, type AbsentReference, type FieldError } from '../kernel/index.js';
import type { OrderLineInput } from './order-shapes.js';

/** A line ready to store: the request's amounts and what the variant was called when sold. */
export interface ResolvedLine {
  variantId: string;
  productId: string;
  variantCode: string;
  variantName: string | null;
  productName: string;
  quantity: string;
  unitPrice: string;
  discount: string;
  listPrice: string;
  /** Whether the line holds stock (a service holds none). */
  stocked: boolean;
}

const refuse = (errors: FieldError[], detail = errors.map((error) => `${error.path}: ${error.message}`).join('; ')): never => {
  throw new Problem('validation-failed', detail, { errors });
};

/**
 * The variants of the lines, with their names. A variant absent from the shop is 400 (detail
 * only: a business rejection, spec Errors); a removed variant or one of a deleted product is 422.
 */
export async function resolveLines(tx: Tx, lines: readonly OrderLineInput[]): Promise<ResolvedLine[]> {
  const ids = [...new Set(lines.map((line) => line.variantId))];
  const variants = await variantsForOrderLines(tx, ids);
  const byId = new Map(variants.map((variant) => [variant.id, variant]));
  refuseAbsent(
    lines.flatMap((line, index) =>
      byId.has(line.variantId) ? [] : [{ path: `lines.${index}.variantId`, noun: 'variant', id: line.variantId }],
    ),
  );
  const removed = variants.filter((variant) => variant.removed);
  if (removed.length > 0)
    throw new Problem('variant-removed', `variant ${removed.map((variant) => variant.code).join(', ')} was removed from its product`);
  return lines.map((line) => {
    const variant = byId.get(line.variantId)!;
    return {
      variantId: variant.id,
      productId: variant.productId,
      variantCode: variant.code,
      variantName: variant.name,
      productName: variant.productName,
      quantity: line.quantity,
      unitPrice: line.unitPrice,
      discount: line.discount ?? '0',
      listPrice: variant.price,
      stocked: variant.stocked,
    };
  });
}

/** True when a line is off its list price or discounted, or the order is discounted: `pos.orders.price.override` territory. */
export function overridesPrices(lines: readonly ResolvedLine[] | undefined, orderDiscount: string | undefined): boolean {
  const offList = (lines ?? []).some((line) => !new Decimal(line.unitPrice).eq(line.listPrice) || !new Decimal(line.discount).isZero());
  return offList || (orderDiscount !== undefined && !new Decimal(orderDiscount).isZero());
}

/**
 * Each id must name a row of the shop in `table` (row-level security hides other shops'; a deleted
 * warehouse or customer counts as absent): 400 with `detail` naming each path and id otherwise.
 */
export async function assertReferences(tx: Tx, references: readonly { table: ReferencedTable; id: string; path: string }[]): Promise<void> {
  const present = new Map<ReferencedTable, Set<string>>();
  for (const table of new Set(references.map((reference) => reference.table))) {
    const ids = [...new Set(references.filter((reference) => reference.table === table).map((reference) => reference.id))];
    // The ids come back as sent (not as stored), so any spelling PostgreSQL accepts for a uuid matches.
    const found = await tx<{ given: string }[]>`
      select given from unnest(${ids}::text[]) as given
      where exists (select 1 from ${REFERENCED[table](tx)} t where t.id = given::uuid)`;
    present.set(table, new Set(found.map((row) => row.given)));
  }
  const absent: AbsentReference[] = references
    .filter((reference) => !present.get(reference.table)!.has(reference.id))
    .map((reference) => ({ path: reference.path, noun: reference.table.replace(/_/g, ' ').replace(/s$/, ''), id: reference.id }));
  refuseAbsent(absent);
}

type ReferencedTable = 'warehouses' | 'customers' | 'sales_channels' | 'payment_methods' | 'tags' | 'roles';

/** Where the ids of each kind live: this module's lists, or what the owning module publishes (deleted warehouses and customers left out). */
const REFERENCED: Record<ReferencedTable, (tx: Tx) => Fragment> = {
  warehouses: liveWarehouses,
  customers: liveCustomers,
  sales_channels: (tx) => tx`sales_channels`,
  payment_methods: (tx) => tx`payment_methods`,
  tags: (tx) => tx`tags`,
  roles: shopRoles,
};

/** 422 `customer-blocked` for a blocked customer. */
export async function assertCustomerNotBlocked(tx: Tx, customerId: string): Promise<void> {
  if (await isCustomerBlocked(tx, customerId)) throw new Problem('customer-blocked', `customer ${customerId} is blocked`);
}

/** The order's shipping address as stored; null stays null. */
export async function normalizeShippingAddress(tx: Tx, input: AddressInput | null | undefined): Promise<Address | null> {
  return input ? normalizeAddress(tx, input, 'shippingAddress.') : null;
}

/** Both `handlerUserId` and `handlerRoleId` at once is 400 (spec, Orders, rule 2). */
export function assertOneHandlerChoice(choice: {
  handlerUserId?: string | null | undefined;
  handlerRoleId?: string | null | undefined;
}): void {
  if (choice.handlerUserId && choice.handlerRoleId) {
    refuse([{ path: 'handlerRoleId', message: 'send either handlerUserId or handlerRoleId, not both' }]);
  }
}

export function fieldError(path: string, message: string): never {
  return refuse([{ path, message }]);
}
