import { Problem, refuseAtCap, refuseInUse, refuseTakenName, type Fragment, type Named, type Tx } from '../kernel/index.js';

/**
 * The order set-up lists (spec, Inventory, chat, reference lists): returned whole, sorted by name
 * ignoring case and accents (`Đông` beside `Dung`, not after `Zoe`: the database collation is byte
 * order), then by exact name and id so the order is stable. The other reference lists are kept by
 * the modules owning their tables (staff, roles and pages: access; categories: catalog; warehouses:
 * inventory; carrier connections: shipments) and sorted the same way.
 */

export const PAYMENT_METHOD_KINDS = ['cash', 'bank_transfer', 'card', 'cod', 'wallet', 'other'] as const;

export interface PaymentMethod extends Named {
  kind: (typeof PAYMENT_METHOD_KINDS)[number];
}

export async function listTags(tx: Tx): Promise<Named[]> {
  return [...(await tx<Named[]>`select id, name from tags order by lower(unaccent(name)), name, id`)];
}

export async function listPaymentMethods(tx: Tx): Promise<PaymentMethod[]> {
  return [...(await tx<PaymentMethod[]>`select id, name, kind from payment_methods order by lower(unaccent(name)), name, id`)];
}

export async function listSalesChannels(tx: Tx): Promise<Named[]> {
  return [...(await tx<Named[]>`select id, name from sales_channels order by lower(unaccent(name)), name, id`)];
}

/** Shop set-up (admin web app): a new entry of one of the order set-up lists; 409 `limit-reached` past the shop's cap. */
export async function createTag(tx: Tx, shopId: string, input: { name: string }): Promise<Named> {
  await refuseAtCap(tx, shopId, 'tags', tx`select from tags`);
  await refuseTakenName(tx, shopId, 'tags', tx`select id, name from tags`, input.name);
  const [row] = await tx<Named[]>`insert into tags (shop_id, name) values (${shopId}, ${input.name}) returning id, name`;
  return row!;
}

export async function createPaymentMethod(tx: Tx, shopId: string, input: Omit<PaymentMethod, 'id'>): Promise<PaymentMethod> {
  await refuseAtCap(tx, shopId, 'paymentMethods', tx`select from payment_methods`);
  await refuseTakenName(tx, shopId, 'paymentMethods', tx`select id, name from payment_methods`, input.name);
  const [row] = await tx<PaymentMethod[]>`
    insert into payment_methods (shop_id, name, kind) values (${shopId}, ${input.name}, ${input.kind}) returning id, name, kind`;
  return row!;
}

export async function createSalesChannel(tx: Tx, shopId: string, input: { name: string }): Promise<Named> {
  await refuseAtCap(tx, shopId, 'salesChannels', tx`select from sales_channels`);
  await refuseTakenName(tx, shopId, 'salesChannels', tx`select id, name from sales_channels`, input.name);
  const [row] = await tx<Named[]>`insert into sales_channels (shop_id, name) values (${shopId}, ${input.name}) returning id, name`;
  return row!;
}

/** The order set-up lists an admin renames and removes, with the orders that use an entry. */
const ORDER_LISTS = {
  tags: { table: 'tags', noun: 'tag', orders: (tx: Tx, id: string) => tx`select order_id from order_tags where tag_id = ${id}` },
  paymentMethods: {
    table: 'payment_methods',
    noun: 'payment method',
    orders: (tx: Tx, id: string) => tx`select order_id from order_payments where method_id = ${id}`,
  },
  salesChannels: {
    table: 'sales_channels',
    noun: 'sales channel',
    orders: (tx: Tx, id: string) => tx`select id as order_id from orders where sales_channel_id = ${id}`,
  },
} satisfies Record<string, { table: string; noun: string; orders: (tx: Tx, id: string) => Fragment }>;

export type OrderList = keyof typeof ORDER_LISTS;

/** Shop set-up: a new name (unique in its list) or, for a payment method, kind. */
export async function updateOrderListEntry(
  tx: Tx,
  shopId: string,
  list: OrderList,
  id: string,
  changes: { name?: string; kind?: PaymentMethod['kind'] },
): Promise<Named> {
  const { table, noun } = ORDER_LISTS[list];
  if (changes.name !== undefined) await refuseTakenName(tx, shopId, list, tx`select id, name from ${tx(table)}`, changes.name, id);
  const payment = list === 'paymentMethods';
  const [row] = await tx<Named[]>`
    update ${tx(table)} set name = coalesce(${changes.name ?? null}, name) ${payment ? tx`, kind = coalesce(${changes.kind ?? null}, kind)` : tx``}
    where id = ${id} returning id, name ${payment ? tx`, kind` : tx``}`;
  if (!row) throw new Problem('not-found', `no ${noun} ${id}`);
  return row;
}

/** Shop set-up: removes an entry no order uses (deleted orders count: their data stays readable). */
export async function removeOrderListEntry(tx: Tx, list: OrderList, id: string): Promise<void> {
  const { table, noun, orders } = ORDER_LISTS[list];
  const [entry] = await tx<{ name: string }[]>`select name from ${tx(table)} where id = ${id} for update`;
  if (!entry) throw new Problem('not-found', `no ${noun} ${id}`);
  const [use] = await tx<{ count: number }[]>`select count(distinct order_id)::int as count from (${orders(tx, id)}) as used`;
  refuseInUse(`${noun} "${entry.name}"`, 'orders', use!.count);
  await tx`delete from ${tx(table)} where id = ${id}`;
}
