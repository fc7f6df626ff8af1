import type { Tx } from '../kernel/tenancy.js';

/**
 * The shop's small reference lists (spec, Inventory, chat, reference lists; Staff and roles):
 * returned whole, sorted by name ignoring case and accents (`Đông` beside `Dung`, not after `Zoe`:
 * the database collation is byte order), then by exact name and id so the order is stable.
 */

export interface Named {
  id: string;
  name: string;
}

export interface Warehouse extends Named {
  address: string | null;
}

export interface PaymentMethod extends Named {
  kind: 'cash' | 'bank_transfer' | 'card' | 'cod' | 'wallet' | 'other';
}

export interface CarrierConnection extends Named {
  carrier: 'carrier_a' | 'carrier_b';
  active: boolean;
}

export interface ChatPage extends Named {
  platform: string;
  connected: boolean;
}

/** Working members whose account is not locked; the id is the user id (an order's `handlerUserId`). */
export async function listStaff(tx: Tx): Promise<Named[]> {
  const rows = await tx<Named[]>`
    select u.id, u.name
    from shop_members m join users u on u.id = m.user_id
    where m.status = 'working' and not u.locked
    order by lower(unaccent(u.name)), u.name, u.id`;
  return [...rows];
}

/** Every role of the shop (connection applications carry permissions, not roles). */
export async function listRoles(tx: Tx): Promise<Named[]> {
  return [...(await tx<Named[]>`select id, name from roles order by lower(unaccent(name)), name, id`)];
}

export async function listCategories(tx: Tx): Promise<Named[]> {
  return [...(await tx<Named[]>`select id, name from categories order by lower(unaccent(name)), name, id`)];
}

/** Warehouses not deleted. */
export async function listWarehouses(tx: Tx): Promise<Warehouse[]> {
  return [...(await tx<Warehouse[]>`select id, name, address from warehouses where deleted_at is null order by lower(unaccent(name)), name, id`)];
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

export async function listCarrierConnections(tx: Tx): Promise<CarrierConnection[]> {
  return [...(await tx<CarrierConnection[]>`select id, carrier, name, active from carrier_connections order by lower(unaccent(name)), name, id`)];
}

/** Only the chat pages of the key's list: the others do not exist for it (spec, Permissions). */
export async function listPages(tx: Tx, pageIds: readonly string[]): Promise<ChatPage[]> {
  if (pageIds.length === 0) return [];
  return [...(await tx<ChatPage[]>`
    select id, name, platform, connected from pages
    where id = any(${pageIds as string[]}::uuid[])
    order by lower(unaccent(name)), name, id`)];
}
