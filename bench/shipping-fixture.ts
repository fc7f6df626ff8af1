import type { KeyObject } from 'node:crypto';
import { OFFICIAL_CARRIER_HOSTS } from '../config/settings.js';
import type { Sql } from '../db/client.js';
import { withShop } from '../domain/kernel/index.js';
import { addApplication, addOrder, addProduct, addWarehouse, HANOI_RECIPIENT } from '../scripts/fixtures/index.js';
import { connectShopToSimulator } from '../scripts/seed/demo-carriers.js';

/** The benches' carrier is the local simulator: loopback, as development allows. */
export const SIMULATOR_ENDPOINTS = { hosts: OFFICIAL_CARRIER_HOSTS, allowLoopback: true };

/**
 * A shop ready to push: a warehouse, a shirt in stock, `orders` orders ready to ship to Hà Nội, a key
 * that may push, and a connection to the carrier B simulator at `carrierUrl` calling back `apiUrl`.
 */
export async function shippingFixture(
  sql: Sql,
  shopId: string,
  { carrierUrl, apiUrl, secretsKey }: { carrierUrl: string; apiUrl: string; secretsKey: KeyObject },
  orders: number,
): Promise<{ warehouseId: string; orderIds: string[]; key: string; connectionId: string }> {
  const prepared = await withShop(sql, shopId, async (tx) => {
    const warehouseId = await addWarehouse(tx, shopId);
    const product = await addProduct(tx, shopId, {
      name: 'Áo thun',
      price: '150000',
      variants: [{ Size: 'M' }],
      stock: { warehouseId, quantity: String(orders * 2) },
    });
    const lines = [{ variantId: product.variants[0]!.id, quantity: '1', unitPrice: '150000' }];
    const orderIds: string[] = [];
    for (let index = 0; index < orders; index += 1)
      orderIds.push((await addOrder(tx, shopId, { warehouseId, shippingAddress: HANOI_RECIPIENT, lines }, { readyToShip: true })).id);
    const { key } = await addApplication(tx, shopId, {
      name: 'Shipping bench',
      permissions: ['pos.shipping.read', 'pos.orders.read', 'pos.orders.update', 'pos.products.read'],
    });
    return { warehouseId, orderIds, key };
  });
  const { connectionId } = await connectShopToSimulator(
    sql,
    shopId,
    { carrier: 'carrier_b', simulatorUrl: carrierUrl, warehouseId: prepared.warehouseId },
    { secretsKey, endpoints: SIMULATOR_ENDPOINTS, publicBaseUrl: apiUrl },
  );
  return { ...prepared, connectionId };
}
