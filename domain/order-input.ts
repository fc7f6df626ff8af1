import { Decimal } from 'decimal.js';
import { normalizeAddress, type Address, type AddressInput } from './addresses.js';
import { Problem, refuseAbsent, type AbsentReference, type FieldError } from './problems.js';
import type { Tx } from './tenancy.js';

export interface OrderLineInput {
  variantId: string;
  quantity: string;
  unitPrice: string;
  discount?: string | undefined;
}

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
  const variants = await tx<{ id: string; productId: string; code: string; name: string | null; productName: string; price: string; removed: boolean }[]>`
    select v.id, v.product_id, v.code, p.name as product_name, v.price::text as price, v.removed_at is not null or p.deleted_at is not null as removed,
      (select string_agg(v.attributes ->> a.name, ' / ' order by a.ordinality)
       from unnest(p.attribute_names) with ordinality as a(name, ordinality) where coalesce(v.attributes ->> a.name, '') <> '') as name
    from variants v join products p on p.id = v.product_id
    where v.id = any(${ids}::uuid[])`;
  const byId = new Map(variants.map((variant) => [variant.id, variant]));
  refuseAbsent(lines.flatMap((line, index) => (byId.has(line.variantId) ? [] : [{ path: `lines.${index}.variantId`, noun: 'variant', id: line.variantId }])));
  const removed = variants.filter((variant) => variant.removed);
  if (removed.length > 0) throw new Problem('variant-removed', `variant ${removed.map((variant) => variant.code).join(', ')} was removed from its product`);
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
export async function assertReferences(tx: Tx, references: readonly { table: 'warehouses' | 'customers' | 'sales_channels' | 'payment_methods' | 'tags' | 'roles'; id: string; path: string }[]): Promise<void> {
  const absent: AbsentReference[] = [];
  for (const reference of references) {
    const live = reference.table === 'warehouses' || reference.table === 'customers' ? tx`and deleted_at is null` : tx``;
    const [row] = await tx`select 1 from ${tx(reference.table)} where id = ${reference.id} ${live}`;
    if (!row) absent.push({ path: reference.path, noun: reference.table.replace(/_/g, ' ').replace(/s$/, ''), id: reference.id });
  }
  refuseAbsent(absent);
}

/** A user id must name a member of the shop (row-level security hides other shops' members): 400, detail only, otherwise. */
export async function assertMember(tx: Tx, userId: string, path: string): Promise<void> {
  const [row] = await tx`select 1 from shop_members where user_id = ${userId}`;
  if (!row) refuseAbsent([{ path, noun: 'staff member', id: userId }]);
}

/** 422 `customer-blocked` for a blocked customer. */
export async function assertCustomerNotBlocked(tx: Tx, customerId: string): Promise<void> {
  const [customer] = await tx<{ isBlocked: boolean }[]>`select is_blocked from customers where id = ${customerId}`;
  if (customer?.isBlocked) throw new Problem('customer-blocked', `customer ${customerId} is blocked`);
}

/** The order's shipping address as stored; null stays null. */
export async function normalizeShippingAddress(tx: Tx, input: AddressInput | null | undefined): Promise<Address | null> {
  return input ? normalizeAddress(tx, input, 'shippingAddress.') : null;
}

/** Both `handlerUserId` and `handlerRoleId` at once is 400 (spec, Orders, rule 2). */
export function assertOneHandlerChoice(choice: { handlerUserId?: string | null | undefined; handlerRoleId?: string | null | undefined }): void {
  if (choice.handlerUserId && choice.handlerRoleId) {
    refuse([{ path: 'handlerRoleId', message: 'send either handlerUserId or handlerRoleId, not both' }]);
  }
}

export function fieldError(path: string, message: string): never {
  return refuse([{ path, message }]);
}
