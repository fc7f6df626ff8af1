import type { Sql } from '../../db/client.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import type { Carrier } from '../../domain/shipments/index.js';
import { connectShopToSimulator } from '../../scripts/seed/demo-carriers.js';
import { testSecretsKey } from './fixtures.js';

/**
 * Connects a test shop to a running carrier simulator (`CarrierA.start()` / `CarrierB.start()`): a
 * carrier account is made there with the connection's callback URL, built on `publicBaseUrl` (the
 * test API's address, for callbacks to reach it). Without a warehouse, one is made to pick up from.
 */
export async function connectTestCarrier(
  sql: Sql,
  shopId: string,
  carrier: Carrier,
  simulator: { url: string },
  options: { publicBaseUrl: string; warehouseId?: string },
): Promise<{ connectionId: string; callbackUrl: string }> {
  const warehouseId = options.warehouseId ?? (await newWarehouse(sql, shopId));
  return connectShopToSimulator(
    sql,
    shopId,
    { carrier, simulatorUrl: simulator.url, warehouseId },
    { secretsKey: testSecretsKey, publicBaseUrl: options.publicBaseUrl },
  );
}

async function newWarehouse(sql: Sql, shopId: string): Promise<string> {
  const [row] = await withShop(
    sql,
    shopId,
    (tx) =>
      tx<{ id: string }[]>`insert into warehouses (shop_id, name, address) values (${shopId}, 'Kho test', '590 CMT8, Quận 3') returning id`,
  );
  return row!.id;
}
