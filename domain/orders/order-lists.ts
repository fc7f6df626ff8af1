import { refuseAtCap, type Named, type Tx } from '../kernel/index.js';

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
  const [row] = await tx<Named[]>`insert into tags (shop_id, name) values (${shopId}, ${input.name}) returning id, name`;
  return row!;
}

export async function createPaymentMethod(tx: Tx, shopId: string, input: Omit<PaymentMethod, 'id'>): Promise<PaymentMethod> {
  await refuseAtCap(tx, shopId, 'paymentMethods', tx`select from payment_methods`);
  const [row] = await tx<PaymentMethod[]>`
    insert into payment_methods (shop_id, name, kind) values (${shopId}, ${input.name}, ${input.kind}) returning id, name, kind`;
  return row!;
}

export async function createSalesChannel(tx: Tx, shopId: string, input: { name: string }): Promise<Named> {
  await refuseAtCap(tx, shopId, 'salesChannels', tx`select from sales_channels`);
  const [row] = await tx<Named[]>`insert into sales_channels (shop_id, name) values (${shopId}, ${input.name}) returning id, name`;
  return row!;
}
