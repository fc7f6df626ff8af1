import { Problem, refuseAtCap, refuseInUse, type Fragment, type Named, type Tx } from '../kernel/index.js';

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

/** Shop set-up: a new name or address of a warehouse not deleted. */
export async function updateWarehouse(tx: Tx, id: string, changes: { name?: string; address?: string | null }): Promise<Warehouse> {
  const [row] = await tx<Warehouse[]>`
    update warehouses set name = coalesce(${changes.name ?? null}, name),
      address = case when ${changes.address !== undefined} then ${changes.address ?? null} else address end
    where id = ${id} and deleted_at is null returning id, name, address`;
  if (!row) throw new Problem('not-found', `no warehouse ${id}`);
  return row;
}

/**
 * Shop set-up: deletes a warehouse holding no stock and named by no stock document still open (a
 * draft, or a transfer on its way); its row stays for the orders and documents of the past. Other
 * uses (a carrier picking up there) are the caller's to refuse first.
 */
export async function deleteWarehouse(tx: Tx, id: string): Promise<void> {
  const [warehouse] = await tx<{ name: string }[]>`select name from warehouses where id = ${id} and deleted_at is null for update`;
  if (!warehouse) throw new Problem('not-found', `no warehouse ${id}`);
  const [use] = await tx<{ stock: number; documents: number }[]>`
    select
      (select count(*)::int from stock where warehouse_id = ${id} and (quantity <> 0 or reserved <> 0 or in_transit <> 0)) as stock,
      (select count(*)::int from inventory_documents
        where ${id} in (warehouse_id, target_warehouse_id) and (status = 'draft' or (status = 'posted' and kind = 'transfer'))) as documents`;
  refuseInUse(`warehouse "${warehouse.name}"`, 'stock-rows', use!.stock);
  refuseInUse(`warehouse "${warehouse.name}"`, 'open-stock-documents', use!.documents);
  await tx`update warehouses set deleted_at = now() where id = ${id}`;
}
