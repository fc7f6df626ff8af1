import { Decimal } from 'decimal.js';
import { assertHolds, assertMember, shopLocksPrices } from '../access/index.js';
import { assignHandler, isUsableHandler, nextInTurn, usableMembersOfRole } from './order-assignment.js';
import {
  assertCustomerNotBlocked,
  assertOneHandlerChoice,
  assertReferences,
  fieldError,
  normalizeShippingAddress,
  overridesPrices,
  resolveLines,
  type ResolvedLine,
} from './order-input.js';
import type { Address } from '../geography/index.js';
import { goodsMoves, stockedLinesIn, stockedLinesOf } from './order-stock.js';
import { stockPhase } from './order-status.js';
import { computeOrderTotals, sumAmounts } from './order-totals.js';
import { adjustStock } from '../inventory/index.js';
import { hasLiveShipment } from '../shipments/index.js';
import { getOrder, lockedOrder, type OrderDetail, type OrderLine } from './order-detail.js';
import type { NewOrder, OrderChanges } from './order-shapes.js';
import { diffSnapshots, recordUpdate, writeEvent } from '../events/index.js';
import { markAddressUsed } from '../customers/index.js';
import { normalizePhone, Problem } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';

/** Who acts: the key's application and permissions. */
export interface OrderActor {
  shopId: string;
  permissions: readonly string[];
}

/**
 * `POST /orders`: a `new` order, goods reserved in the warehouse, a handler assigned (never
 * refused), and only `order.created` emitted.
 */
export async function createOrder(tx: Tx, actor: OrderActor, input: NewOrder): Promise<OrderDetail> {
  assertOneHandlerChoice(input);
  const lines = await resolveLines(tx, input.lines);
  if (overridesPrices(lines, input.discount))
    assertHolds(actor.permissions, ['pos.orders.price.override'], 'a price off the list or a discount');
  if (input.payments?.length) assertHolds(actor.permissions, ['pos.orders.payment.record'], 'recording payments');
  await assertReferences(tx, [
    { table: 'warehouses', id: input.warehouseId, path: 'warehouseId' },
    ...(input.customerId ? [{ table: 'customers' as const, id: input.customerId, path: 'customerId' }] : []),
    ...(input.salesChannelId ? [{ table: 'sales_channels' as const, id: input.salesChannelId, path: 'salesChannelId' }] : []),
    ...(input.payments ?? []).map((payment, index) => ({
      table: 'payment_methods' as const,
      id: payment.methodId,
      path: `payments.${index}.methodId`,
    })),
    ...(input.tagIds ?? []).map((tagId, index) => ({ table: 'tags' as const, id: tagId, path: `tagIds.${index}` })),
  ]);
  if (input.customerId) await assertCustomerNotBlocked(tx, input.customerId);
  const address = await normalizeShippingAddress(tx, input.shippingAddress);
  const billPhone = input.billPhone ? normalizePhone(input.billPhone, 'billPhone') : null;
  const charges = {
    discount: input.discount ?? '0',
    shippingFee: input.shippingFee ?? '0',
    freeShipping: input.freeShipping ?? false,
    surcharge: input.surcharge ?? '0',
    tax: input.tax ?? '0',
  };
  const totals = computeOrderTotals(lines, charges);
  const paidAmount = sumAmounts((input.payments ?? []).map((payment) => payment.amount));
  const code = input.code ? await assertCodeFree(tx, input.code) : await nextOrderCode(tx);
  // Last before the writes: the round-robin turn stays locked until the order commits.
  const handlerUserId = await assignHandler(tx, actor.shopId, input);

  const [created] = await tx<{ id: string }[]>`
    insert into orders (shop_id, code, warehouse_id, customer_id, sales_channel_id, received_at_shop, handler_user_id,
      bill_full_name, bill_phone, bill_email, total_price, discount, shipping_fee, free_shipping, surcharge, tax, total_amount,
      paid_amount, occurred_at, note)
    values (${actor.shopId}, ${code}, ${input.warehouseId}, ${input.customerId ?? null}, ${input.salesChannelId ?? null}, ${input.receivedAtShop ?? false},
      ${handlerUserId}, ${input.billFullName ?? null}, ${billPhone}, ${input.billEmail ?? null}, ${totals.totalPrice}, ${charges.discount},
      ${charges.shippingFee}, ${charges.freeShipping}, ${charges.surcharge}, ${charges.tax}, ${totals.totalAmount}, ${paidAmount},
      ${input.occurredAt ?? tx`now()`}, ${input.note ?? null})
    returning id`.catch(duplicateCodeAsProblem(code));
  const orderId = created!.id;
  await writeShippingAddress(tx, orderId, address);
  if (input.customerId && address) await markAddressUsed(tx, actor.shopId, input.customerId, address);
  await writeLines(tx, actor.shopId, orderId, lines, totals.lineTotals);
  await writePayments(tx, actor.shopId, orderId, input.payments ?? []);
  await writeTags(tx, actor.shopId, orderId, input.tagIds ?? []);
  await adjustStock(tx, actor.shopId, goodsMoves(stockedLinesIn(lines), input.warehouseId, 'none', 'reserved'));
  const detail = await getOrder(tx, orderId);
  await writeEvent(tx, { shopId: actor.shopId, type: 'order.created', resourceId: orderId, data: detail });
  return detail;
}

/**
 * `PATCH /orders/{id}`: the fields sent; `lines` replaces the set and the reservation with it.
 * Goods (lines, warehouse) change only before shipping and without a live shipment (409).
 */
export async function updateOrder(tx: Tx, actor: OrderActor, id: string, changes: OrderChanges): Promise<OrderDetail> {
  const before = await lockedOrder(tx, id);
  if (before.status === 'deleted') throw new Problem('conflict', `order ${before.code} is deleted`);
  const handlerUserId = await chosenHandler(tx, actor, changes);
  const lines = changes.lines ? await resolveLines(tx, changes.lines) : undefined;
  if (overridesPrices(lines, changes.discount)) {
    if (await shopLocksPrices(tx, actor.shopId))
      throw new Problem('insufficient-permission', 'the shop locks prices: an order edit cannot set a price off the list or a discount');
    assertHolds(actor.permissions, ['pos.orders.price.override'], 'a price off the list or a discount');
  }
  if (changes.payments) assertHolds(actor.permissions, ['pos.orders.payment.record'], 'recording payments');
  const warehouseId = changes.warehouseId ?? before.warehouseId;
  const goodsChange = (lines !== undefined && !sameLines(before.lines, lines)) || warehouseId !== before.warehouseId;
  if (goodsChange) {
    if (await hasLiveShipment(tx, id))
      throw new Problem('order-has-live-shipment', `order ${before.code} has a shipment that has not ended; its goods cannot change`);
    if (stockPhase(before.status) !== 'reserved')
      throw new Problem('conflict', `the goods of an order in state ${before.status} cannot change`);
  }
  await assertReferences(tx, [
    ...(changes.warehouseId ? [{ table: 'warehouses' as const, id: changes.warehouseId, path: 'warehouseId' }] : []),
    ...(changes.customerId ? [{ table: 'customers' as const, id: changes.customerId, path: 'customerId' }] : []),
    ...(changes.salesChannelId ? [{ table: 'sales_channels' as const, id: changes.salesChannelId, path: 'salesChannelId' }] : []),
    ...(changes.payments ?? []).map((payment, index) => ({
      table: 'payment_methods' as const,
      id: payment.methodId,
      path: `payments.${index}.methodId`,
    })),
    ...(changes.tagIds ?? []).map((tagId, index) => ({ table: 'tags' as const, id: tagId, path: `tagIds.${index}` })),
  ]);
  if (changes.customerId && changes.customerId !== before.customerId) await assertCustomerNotBlocked(tx, changes.customerId);

  const pick = <K extends keyof OrderChanges & keyof OrderDetail>(key: K) => (changes[key] === undefined ? before[key] : changes[key]);
  const charges = {
    discount: changes.discount ?? before.discount,
    shippingFee: changes.shippingFee ?? before.shippingFee,
    freeShipping: changes.freeShipping ?? before.freeShipping,
    surcharge: changes.surcharge ?? before.surcharge,
    tax: changes.tax ?? before.tax,
  };
  const finalLines = goodsChange && lines ? lines : before.lines;
  const totals = computeOrderTotals(finalLines, charges);
  const paidAmount = changes.payments ? sumAmounts(changes.payments.map((payment) => payment.amount)) : before.paidAmount;
  const billPhone =
    changes.billPhone === undefined ? before.billPhone : changes.billPhone ? normalizePhone(changes.billPhone, 'billPhone') : null;

  const stockBefore = goodsChange ? await stockedLinesOf(tx, id) : [];
  await tx`
    update orders set
      warehouse_id = ${warehouseId}, customer_id = ${pick('customerId')}, sales_channel_id = ${pick('salesChannelId')},
      received_at_shop = ${pick('receivedAtShop')}, handler_user_id = ${handlerUserId ?? before.handlerUserId},
      bill_full_name = ${pick('billFullName')}, bill_phone = ${billPhone}, bill_email = ${pick('billEmail')},
      total_price = ${totals.totalPrice}, discount = ${charges.discount}, shipping_fee = ${charges.shippingFee}, free_shipping = ${charges.freeShipping},
      surcharge = ${charges.surcharge}, tax = ${charges.tax}, total_amount = ${totals.totalAmount}, paid_amount = ${paidAmount},
      occurred_at = ${changes.occurredAt ?? tx`occurred_at`}, note = ${pick('note')}
    where id = ${id}`;
  if (changes.shippingAddress !== undefined) {
    const address = await normalizeShippingAddress(tx, changes.shippingAddress);
    await writeShippingAddress(tx, id, address);
    const customerId = pick('customerId');
    if (customerId && address) await markAddressUsed(tx, actor.shopId, customerId, address);
  }
  if (goodsChange && lines) {
    await tx`delete from order_lines where order_id = ${id}`;
    await writeLines(tx, actor.shopId, id, lines, totals.lineTotals);
  }
  if (changes.payments) {
    await tx`delete from order_payments where order_id = ${id}`;
    await writePayments(tx, actor.shopId, id, changes.payments);
  }
  if (changes.tagIds) {
    await tx`delete from order_tags where order_id = ${id}`;
    await writeTags(tx, actor.shopId, id, changes.tagIds);
  }
  if (goodsChange) {
    const release = goodsMoves(stockBefore, before.warehouseId, 'reserved', 'none');
    // New lines were written just above; otherwise the stored ones stay, in another warehouse.
    const reserve = goodsMoves(lines ? stockedLinesIn(lines) : stockBefore, warehouseId, 'none', 'reserved');
    await adjustStock(tx, actor.shopId, [...release, ...reserve]);
  }
  const after = await touchedIfChanged(tx, before, await getOrder(tx, id));
  await recordUpdate(tx, { shopId: actor.shopId, resource: 'order', resourceId: id, before, after });
  return after;
}

/** updatedAt moves only when the order's data changed: a no-op PATCH does not resurface it in syncs. */
async function touchedIfChanged(tx: Tx, before: OrderDetail, after: OrderDetail): Promise<OrderDetail> {
  if (!diffSnapshots(before, after)) return after;
  const [touched] = await tx<{ updatedAt: string }[]>`
    update orders set updated_at = clock_timestamp() where id = ${after.id} returning api_time(updated_at) as updated_at`;
  return { ...after, updatedAt: touched!.updatedAt };
}

/**
 * A handler named in an edit: needs `pos.orders.assign`. A user or role absent from the shop is 400
 * with detail only; an unusable member or a role without usable members is 400 on the field.
 */
async function chosenHandler(tx: Tx, actor: OrderActor, changes: OrderChanges): Promise<string | undefined> {
  if (!changes.handlerUserId && !changes.handlerRoleId) return undefined;
  assertHolds(actor.permissions, ['pos.orders.assign'], 'choosing the handler of an order');
  assertOneHandlerChoice(changes);
  if (changes.handlerUserId) {
    await assertMember(tx, changes.handlerUserId, 'handlerUserId');
    if (!(await isUsableHandler(tx, changes.handlerUserId)))
      fieldError('handlerUserId', 'this user cannot handle orders (not a working member, locked, or without pos.orders.update)');
    return changes.handlerUserId;
  }
  await assertReferences(tx, [{ table: 'roles', id: changes.handlerRoleId!, path: 'handlerRoleId' }]);
  const members = await usableMembersOfRole(tx, changes.handlerRoleId!);
  if (members.length === 0) fieldError('handlerRoleId', 'this role has no member who can handle orders');
  return nextInTurn(tx, actor.shopId, `role:${changes.handlerRoleId!}`, members);
}

function sameLines(stored: readonly OrderLine[], sent: readonly ResolvedLine[]): boolean {
  return (
    stored.length === sent.length &&
    stored.every((line, index) => {
      const other = sent[index]!;
      return (
        line.variantId === other.variantId &&
        [line.quantity, line.unitPrice, line.discount].every((amount, part) =>
          new Decimal(amount).eq([other.quantity, other.unitPrice, other.discount][part]!),
        )
      );
    })
  );
}

async function assertCodeFree(tx: Tx, code: string): Promise<string> {
  const [taken] = await tx`select 1 from orders where code_key = ${code.toLowerCase()}`;
  if (taken) throw new Problem('duplicate-code', `order code ${code} already exists in the shop`);
  return code;
}

/** `DH` and the shop's next number (its own sequence, never waiting for another creation), skipping numbers a chosen code took. */
async function nextOrderCode(tx: Tx): Promise<string> {
  for (;;) {
    const [next] = await tx<{ number: string }[]>`select next_order_number()::text as number`;
    const code = `DH${next!.number.padStart(6, '0')}`;
    const [taken] = await tx`select 1 from orders where code_key = ${code.toLowerCase()}`;
    if (!taken) return code;
  }
}

/** A concurrent order with the same chosen code loses on the unique index: 409 `duplicate-code`. */
function duplicateCodeAsProblem(code: string) {
  return (error: unknown): never => {
    if ((error as { code?: string; constraint_name?: string }).constraint_name === 'orders_code_key_idx') {
      throw new Problem('duplicate-code', `order code ${code} already exists in the shop`);
    }
    throw error;
  };
}

async function writeShippingAddress(tx: Tx, orderId: string, address: Address | null): Promise<void> {
  await tx`
    update orders set has_shipping_address = ${address !== null},
      shipping_recipient_name = ${address?.recipientName ?? null}, shipping_recipient_phone = ${address?.recipientPhone ?? null},
      shipping_address_line = ${address?.addressLine ?? null}, shipping_geo_system = ${address?.geoSystem ?? null},
      shipping_province_unit_id = ${address?.provinceUnitId ?? null}, shipping_district_unit_id = ${address?.districtUnitId ?? null},
      shipping_ward_unit_id = ${address?.wardUnitId ?? null}, shipping_province_name = ${address?.provinceName ?? null},
      shipping_district_name = ${address?.districtName ?? null}, shipping_ward_name = ${address?.wardName ?? null}
    where id = ${orderId}`;
}

// Each writes its rows in one statement; positions count from 0 (`with ordinality` from 1).

async function writeLines(
  tx: Tx,
  shopId: string,
  orderId: string,
  lines: readonly ResolvedLine[],
  lineTotals: readonly string[],
): Promise<void> {
  if (lines.length === 0) return;
  const column = <K extends keyof ResolvedLine>(key: K) => lines.map((line) => line[key]);
  await tx`
    insert into order_lines (shop_id, order_id, position, variant_id, product_id, variant_code, variant_name, product_name, quantity, unit_price, discount, line_total)
    select ${shopId}, ${orderId}, l.position - 1, l.variant_id, l.product_id, l.variant_code, l.variant_name, l.product_name, l.quantity, l.unit_price, l.discount, l.line_total
    from unnest(${column('variantId')}::uuid[], ${column('productId')}::uuid[], ${column('variantCode')}::text[], ${column('variantName')}::text[],
      ${column('productName')}::text[], ${column('quantity')}::numeric[], ${column('unitPrice')}::numeric[], ${column('discount')}::numeric[], ${[...lineTotals]}::numeric[])
      with ordinality as l(variant_id, product_id, variant_code, variant_name, product_name, quantity, unit_price, discount, line_total, position)`;
}

async function writePayments(
  tx: Tx,
  shopId: string,
  orderId: string,
  payments: readonly { methodId: string; amount: string }[],
): Promise<void> {
  if (payments.length === 0) return;
  await tx`
    insert into order_payments (shop_id, order_id, position, method_id, amount)
    select ${shopId}, ${orderId}, p.position - 1, p.method_id, p.amount
    from unnest(${payments.map((payment) => payment.methodId)}::uuid[], ${payments.map((payment) => payment.amount)}::numeric[]) with ordinality as p(method_id, amount, position)`;
}

async function writeTags(tx: Tx, shopId: string, orderId: string, tagIds: readonly string[]): Promise<void> {
  if (tagIds.length === 0) return;
  await tx`
    insert into order_tags (shop_id, order_id, position, tag_id)
    select ${shopId}, ${orderId}, t.position - 1, t.tag_id
    from unnest(${[...new Set(tagIds)]}::uuid[]) with ordinality as t(tag_id, position)`;
}
