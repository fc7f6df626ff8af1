import type { Sql } from '../../db/client.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { type Carrier, type CarrierEndpoints, type ConnectionKeys } from '../../domain/shipments/index.js';
import { OFFICIAL_CARRIER_HOSTS } from '../../config/settings.js';
import type { CarrierAdapterOptions } from '../../adapters/carriers/carrier-adapter.js';
import { createOutboundAgent } from '../../adapters/outbound/outbound-http.js';
import { testOutboundPolicy } from './receiver.js';
import { connectShopToSimulator } from '../../scripts/seed/demo-carriers.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';
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
  const warehouseId =
    options.warehouseId ??
    (await withShop(sql, shopId, (tx) => addWarehouse(tx, shopId, { name: 'Kho test', address: '590 CMT8, Quận 3' })));
  return connectShopToSimulator(
    sql,
    shopId,
    { carrier, simulatorUrl: simulator.url, warehouseId },
    { ...testConnectionKeys, publicBaseUrl: options.publicBaseUrl },
  );
}

/** What the test settings allow carrier connections: the official hosts, and loopback (the simulators). */
export const testCarrierEndpoints: CarrierEndpoints = { hosts: OFFICIAL_CARRIER_HOSTS, allowLoopback: true };

/** Connecting in tests: the suite's secrets key and endpoints. */
export const testConnectionKeys: ConnectionKeys = { secretsKey: testSecretsKey, endpoints: testCarrierEndpoints };

/** Carrier adapters as the test worker builds them: through the outbound policy of the test settings. */
export function testCarrierOptions(timeoutMs?: number): CarrierAdapterOptions {
  return { dispatcher: createOutboundAgent(testOutboundPolicy()), endpoints: testCarrierEndpoints, ...(timeoutMs ? { timeoutMs } : {}) };
}
