import type { Named, Tx } from '../kernel/index.js';

/**
 * The order set-up lists (spec, Inventory, chat, reference lists): returned whole, sorted by name
 * ignoring case and accents (`Đông` beside `Dung`, not after `Zoe`: the database collation is byte
 * order), then by exact name and id so the order is stable. The other reference lists are kept by
 * the modules owning their tables (staff, roles and pages: access; categories: catalog; warehouses:
 * inventory; carrier connections: shipments) and sorted the same way.
 */

export interface PaymentMethod extends Named {
  kind: 'cash' | 'bank_transfer' | 'card' | 'cod' | 'wallet' | 'other';
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
