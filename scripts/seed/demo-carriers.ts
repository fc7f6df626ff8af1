import type { Sql } from '../../db/client.js';
import { listWarehouses } from '../../domain/inventory/index.js';
import { Problem, withShop } from '../../domain/kernel/index.js';
import {
  carrierCallbackUrl,
  carrierConnection,
  connectCarrierWithCallbackUrl,
  disconnectCarrier,
  listCarrierConnections,
  type Carrier,
  type CarrierAddress,
  type CarrierACredentials,
  type CarrierBCredentials,
  type ConnectionKeys,
} from '../../domain/shipments/index.js';

export type CallbackKeys = ConnectionKeys & {
  /** The callback URLs registered at the simulators are built on it. */
  publicBaseUrl: string;
};

type Account = { carrier: 'carrier_a'; credentials: CarrierACredentials } | { carrier: 'carrier_b'; credentials: CarrierBCredentials };

/**
 * Registers (or updates) a carrier account at a running simulator through its `/_control/shops`:
 * without credentials it makes them up; answers the account as the simulator keeps it.
 */
async function registerAccount(simulatorUrl: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await fetch(new URL('/_control/shops', simulatorUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${simulatorUrl} refused the carrier account (${response.status}): ${await response.text()}`);
  return (await response.json()) as Record<string, unknown>;
}

/** The control body of an account: the carrier's own credentials and the callback URL with our secret in it. */
function accountBody(account: Account, callbackUrl: string): Record<string, unknown> {
  return account.carrier === 'carrier_a'
    ? { shopId: account.credentials.shopId, token: account.credentials.token, callbackUrl }
    : { token: account.credentials.token, clientSource: account.credentials.clientSource, callbackUrl };
}

/**
 * Makes a carrier account at a running simulator and connects the shop to it (sealed credentials,
 * the warehouse it picks up from), then gives the account the connection's callback URL.
 */
export async function connectShopToSimulator(
  sql: Sql,
  shopId: string,
  input: { carrier: Carrier; simulatorUrl: string; warehouseId: string; name?: string; pickUp?: CarrierAddress },
  keys: CallbackKeys,
): Promise<{ connectionId: string; callbackUrl: string }> {
  const made = await registerAccount(input.simulatorUrl, {});
  const account: Account =
    input.carrier === 'carrier_a'
      ? { carrier: 'carrier_a', credentials: { token: String(made.token), shopId: Number(made.shopId) } }
      : { carrier: 'carrier_b', credentials: { token: String(made.token), clientSource: String(made.clientSource) } };
  const { connection, callbackUrl } = await withShop(sql, shopId, (tx) =>
    connectCarrierWithCallbackUrl(
      tx,
      shopId,
      {
        ...account,
        name: input.name ?? `${input.carrier} (simulator)`,
        warehouseId: input.warehouseId,
        baseUrl: input.simulatorUrl,
        pickUp: input.pickUp ?? DEMO_PICK_UP,
      },
      keys,
    ),
  );
  await registerAccount(input.simulatorUrl, accountBody(account, callbackUrl));
  return { connectionId: connection.id, callbackUrl };
}

/** The demo shop's warehouse in Hồ Chí Minh, as the carriers take a pick-up address (carrier A serves Quận 3). */
export const DEMO_PICK_UP: CarrierAddress = {
  name: 'Shopflow Demo',
  phone: '0911222333',
  street: '590 Cách Mạng Tháng 8',
  ward: null,
  district: 'Quận 3',
  province: 'Hồ Chí Minh',
};

const DEMO_CARRIERS = [
  { carrier: 'carrier_a', name: 'Carrier A (simulator)' },
  { carrier: 'carrier_b', name: 'Carrier B (simulator)' },
] as const;

/**
 * `npm run dev`: the demo shop connected to both simulators. The connections persist in the database
 * but the simulators keep their accounts in memory, so each start registers the stored credentials
 * and callback URL again. A connection that cannot serve (no credentials or pick-up address, as the
 * seed once made, or another simulator address) is disconnected and made anew.
 */
export async function seedDemoCarriers(
  sql: Sql,
  shopId: string,
  simulatorUrls: Record<Carrier, string>,
  keys: CallbackKeys,
): Promise<{ carrier: Carrier; connectionId: string }[]> {
  const existing = await withShop(sql, shopId, listCarrierConnections);
  const connected = [];
  for (const { carrier, name } of DEMO_CARRIERS) {
    const simulatorUrl = simulatorUrls[carrier];
    let connectionId: string | undefined;
    for (const row of existing.filter((candidate) => candidate.carrier === carrier && candidate.name === name && candidate.active)) {
      const opened = await withShop(sql, shopId, (tx) => carrierConnection(tx, row.id, keys.secretsKey)).catch((error: unknown) => {
        if (error instanceof Problem && error.code === 'carrier-unavailable') return undefined;
        throw error;
      });
      if (opened && !connectionId && opened.baseUrl === simulatorUrl && opened.pickUp) {
        await registerAccount(simulatorUrl, accountBody(opened, carrierCallbackUrl(keys.publicBaseUrl, opened.callbackSecret)));
        connectionId = opened.id;
      } else {
        await withShop(sql, shopId, (tx) => disconnectCarrier(tx, row.id));
      }
    }
    if (!connectionId) {
      const warehouses = await withShop(sql, shopId, listWarehouses);
      const warehouse = warehouses.find((candidate) => candidate.name === 'Kho TP. Hồ Chí Minh') ?? warehouses[0];
      if (!warehouse) throw new Error('the demo shop has no warehouse for the carriers to pick up from');
      ({ connectionId } = await connectShopToSimulator(sql, shopId, { carrier, simulatorUrl, warehouseId: warehouse.id, name }, keys));
    }
    connected.push({ carrier, connectionId });
  }
  return connected;
}
