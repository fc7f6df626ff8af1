import { createHash, randomBytes, randomUUID, type KeyObject } from 'node:crypto';
import type { Sql } from '../../db/client.js';
import { liveWarehouses } from '../inventory/index.js';
import { decryptSecret, Problem, refuseAbsent, refuseAtCap, refuseInUse, encryptSecret } from '../kernel/index.js';
import type { Tx } from '../kernel/index.js';
import {
  type CarrierConnection,
  carrierACredentialsSchema,
  carrierBCredentialsSchema,
  connectionSecretsSchema,
  type CarrierACredentials,
  type Carrier,
  type CarrierBCredentials,
  type ConnectCarrierInput,
} from './carrier-connection-input.js';
import type { CarrierAddress } from './carrier-address.js';
import { assertCarrierEndpoint, type CarrierEndpoints } from './carrier-endpoints.js';

/** A connection with its credentials opened: for the carrier adapters' callers only. */
export type OpenedCarrierConnection = {
  id: string;
  shopId: string;
  name: string;
  active: boolean;
  baseUrl: string;
  warehouseId: string | null;
  /** Null for a connection made before pick-up addresses were kept: it cannot push. */
  pickUp: CarrierAddress | null;
  /** The secret of the callback URL registered at the carrier. */
  callbackSecret: string;
} & ({ carrier: 'carrier_a'; credentials: CarrierACredentials } | { carrier: 'carrier_b'; credentials: CarrierBCredentials });

export async function listCarrierConnections(tx: Tx): Promise<CarrierConnection[]> {
  return [
    ...(await tx<CarrierConnection[]>`select id, carrier, name, active from carrier_connections order by lower(unaccent(name)), name, id`),
  ];
}

/** The lookup key of a callback secret: its SHA-256 (the secret itself is only in the encrypted blob). */
export function callbackSecretHash(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/**
 * The URL a carrier calls back (`POST`), with the connection's secret in its path (base64url: URL-safe
 * as it is). Shown once on connecting: the person registers it at the carrier (GHN and GHTK take it
 * in their dashboards).
 */
export function carrierCallbackUrl(publicBaseUrl: string, callbackSecret: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/platform/carriers/callbacks/${callbackSecret}`;
}

/**
 * The connection a callback URL's secret names, whatever its shop (a callback knows none): the
 * row-level-security policy admits the row whose hash is `app.callback_secret_hash` (migration 25).
 */
export async function connectionOfCallback(
  sql: Sql,
  callbackSecret: string,
): Promise<{ shopId: string; connectionId: string; carrier: Carrier } | undefined> {
  return sql.begin(async (tx) => {
    await tx`select set_config('app.callback_secret_hash', ${callbackSecretHash(callbackSecret).toString('hex')}, true)`;
    const [row] = await tx<{ shopId: string; connectionId: string; carrier: Carrier }[]>`
      select shop_id, id as connection_id, carrier from carrier_connections where callback_secret_hash = ${callbackSecretHash(callbackSecret)}`;
    return row;
  }) as Promise<{ shopId: string; connectionId: string; carrier: Carrier } | undefined>;
}

/** What connecting needs besides the input: the key that encrypts credentials, and where connections may point. */
export interface ConnectionKeys {
  secretsKey: KeyObject;
  endpoints: CarrierEndpoints;
}

/** 409 `conflict` while a connection still active picks up at the warehouse: the shop disconnects it first. */
export async function refuseRemovingPickUpWarehouse(tx: Tx, warehouseId: string): Promise<void> {
  const [use] = await tx<{ count: number }[]>`
    select count(*)::int as count from carrier_connections where warehouse_id = ${warehouseId} and active`;
  refuseInUse('the warehouse', 'carrier-connections', use!.count);
}

/**
 * Connects a carrier: the credentials and a new callback secret are encrypted with the connection id as
 * associated data. Returns the id and the callback secret, for the callback URL registered at the carrier.
 * The base URL must be one of the carrier's endpoints (carrier-endpoints.ts).
 */
export async function connectCarrier(
  tx: Tx,
  shopId: string,
  input: ConnectCarrierInput,
  keys: ConnectionKeys,
): Promise<{ connectionId: string; callbackSecret: string }> {
  assertCarrierEndpoint(input.carrier, input.baseUrl, keys.endpoints);
  const [warehouse] = await tx`select 1 from ${liveWarehouses(tx)} w where w.id = ${input.warehouseId}`;
  if (!warehouse) refuseAbsent([{ path: 'warehouseId', noun: 'warehouse', id: input.warehouseId }]);
  await refuseAtCap(tx, shopId, 'carrierConnections', tx`select from carrier_connections`);
  const connectionId = randomUUID();
  const callbackSecret = randomBytes(32).toString('base64url');
  const encrypted = encryptSecret(keys.secretsKey, JSON.stringify({ credentials: input.credentials, callbackSecret }), connectionId);
  await tx`
    insert into carrier_connections (id, shop_id, carrier, name, base_url, warehouse_id, pick_up, encrypted_credentials, callback_secret_hash)
    values (${connectionId}, ${shopId}, ${input.carrier}, ${input.name}, ${input.baseUrl}, ${input.warehouseId},
      ${tx.json(input.pickUp)}, ${encrypted}, ${callbackSecretHash(callbackSecret)})`;
  return { connectionId, callbackSecret };
}

/**
 * Connects a carrier and answers what the person sees once: the new connection's row and the
 * callback URL to register at the carrier.
 */
export async function connectCarrierWithCallbackUrl(
  tx: Tx,
  shopId: string,
  input: ConnectCarrierInput,
  keys: ConnectionKeys & { publicBaseUrl: string },
): Promise<{ connection: CarrierConnection; callbackUrl: string }> {
  const { connectionId, callbackSecret } = await connectCarrier(tx, shopId, input, keys);
  const connection = { id: connectionId, carrier: input.carrier, name: input.name, active: true };
  return { connection, callbackUrl: carrierCallbackUrl(keys.publicBaseUrl, callbackSecret) };
}

/**
 * Disconnects: a connection no shipment names goes; one that has shipments is switched off (no new
 * pushes) and keeps its credentials, which cancelling and tracking those shipments still need.
 */
export async function disconnectCarrier(tx: Tx, connectionId: string): Promise<'deleted' | 'switched-off'> {
  const [connection] = await tx<{ used: boolean }[]>`
    select exists (select 1 from shipments s where s.connection_id = c.id) as used from carrier_connections c where c.id = ${connectionId} for update`;
  if (!connection) throw new Problem('not-found', `no carrier connection ${connectionId}`);
  if (connection.used) {
    await tx`update carrier_connections set active = false where id = ${connectionId}`;
    return 'switched-off';
  }
  await tx`delete from carrier_connections where id = ${connectionId}`;
  return 'deleted';
}

/** A connection's row as the adapters need it, its credentials still encrypted. */
interface EncryptedConnectionRow {
  id: string;
  shopId: string;
  name: string;
  carrier: Carrier;
  active: boolean;
  baseUrl: string | null;
  warehouseId: string | null;
  pickUp: CarrierAddress | null;
  encryptedCredentials: Buffer | null;
}

async function encryptedConnection(tx: Tx, id: string): Promise<EncryptedConnectionRow | undefined> {
  const [row] = await tx<EncryptedConnectionRow[]>`
    select id, shop_id, name, carrier, active, base_url, warehouse_id, pick_up, encrypted_credentials from carrier_connections where id = ${id}`;
  return row;
}

/** The row with its credentials opened; 503 `carrier-unavailable` when it was never given any. */
function opened(row: EncryptedConnectionRow, secretsKey: KeyObject): OpenedCarrierConnection {
  const { encryptedCredentials, baseUrl, ...fields } = row;
  if (!encryptedCredentials || !baseUrl)
    throw new Problem('carrier-unavailable', `carrier connection ${row.id} has no credentials: connect the carrier again`);
  const secrets = connectionSecretsSchema.parse(JSON.parse(decryptSecret(secretsKey, encryptedCredentials, row.id)));
  const common = { ...fields, baseUrl, callbackSecret: secrets.callbackSecret };
  return fields.carrier === 'carrier_a'
    ? { ...common, carrier: 'carrier_a', credentials: carrierACredentialsSchema.parse(secrets.credentials) }
    : { ...common, carrier: 'carrier_b', credentials: carrierBCredentialsSchema.parse(secrets.credentials) };
}

/**
 * The connection a push names, opened before the carrier is called (the request hands it to the run
 * it starts on its own worker: docs/behaviour/shipments.md): 404 when the shop has none with that id, 409
 * `conflict` when it is switched off, 503 `carrier-unavailable` when it cannot be used (no
 * credentials or pick-up address: connected before they were kept).
 */
export async function connectionForPush(
  tx: Tx,
  id: string,
  secretsKey: KeyObject,
): Promise<OpenedCarrierConnection & { pickUp: CarrierAddress }> {
  const row = await encryptedConnection(tx, id);
  if (!row) throw new Problem('not-found', `no carrier connection ${id}`);
  if (!row.active)
    throw new Problem('conflict', `carrier connection "${row.name}" is switched off: choose another or connect the carrier again`);
  const { pickUp } = row;
  if (!row.encryptedCredentials || !row.baseUrl || !pickUp)
    throw new Problem(
      'carrier-unavailable',
      `carrier connection "${row.name}" has no credentials or pick-up address: connect the carrier again`,
    );
  return { ...opened(row, secretsKey), pickUp };
}

/**
 * The connection with its credentials opened, for an adapter. 404 when the shop has no such
 * connection; 503 `carrier-unavailable` when it was never given credentials (an unusable connection).
 */
export async function carrierConnection(tx: Tx, id: string, secretsKey: KeyObject): Promise<OpenedCarrierConnection> {
  const row = await encryptedConnection(tx, id);
  if (!row) throw new Problem('not-found', `no carrier connection ${id}`);
  return opened(row, secretsKey);
}
