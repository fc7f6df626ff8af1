import { refuseAtCap, type Fragment, type Named, type Tx } from '../kernel/index.js';

export interface Warehouse extends Named {
  address: string | null;
}

/** Warehouses not deleted. */
export async function listWarehouses(tx: Tx): Promise<Warehouse[]> {
  return [
    ...(await tx<Warehouse[]>`select id, name, address from warehouses where deleted_at is null order by lower(unaccent(name)), name, id`),
  ];
}

/** A `from` item of the shop's warehouses not deleted (column `id`), for another module's reference checks. */
export function liveWarehouses(tx: Tx): Fragment {
  return tx`(select id from warehouses where deleted_at is null)`;
}

/** The name of the warehouse `warehouseId` (a column of the caller's query) as a scalar subquery. */
export function warehouseNameOf(tx: Tx, warehouseId: Fragment): Fragment {
  return tx`(select w.name from warehouses w where w.id = ${warehouseId})`;
}

/** Shop set-up (admin web app): a new warehouse; 409 `limit-reached` past the shop's cap (deleted ones count: their rows stay). */
export async function createWarehouse(tx: Tx, shopId: string, input: { name: string; address?: string | null }): Promise<Warehouse> {
  await refuseAtCap(tx, shopId, 'warehouses', tx`select from warehouses`);
  const [row] = await tx<Warehouse[]>`
    insert into warehouses (shop_id, name, address) values (${shopId}, ${input.name}, ${input.address ?? null}) returning id, name, address`;
  return row!;
}
