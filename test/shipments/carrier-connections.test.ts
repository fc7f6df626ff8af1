import { createSecretKey, randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import {
  carrierConnection,
  connectCarrier,
  disconnectCarrier,
  listCarrierConnections,
  callbackSecretHash,
} from '../../domain/shipments/carrier-connections.js';
import { connectCarrierInputSchema, type ConnectCarrierInput } from '../../domain/shipments/carrier-connection-input.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';
import { bearer, createShopFixture, testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { pickUpAddress } from './carrier-order-request.js';
import { testConnectionKeys } from '../support/carriers.js';

const { db, api, shop } = useSuite({ api: true, shop: true });
let warehouseId: string;

const inTheShop = <T>(work: (tx: Tx) => Promise<T>, shopId = shop.shopId) => withShop(db.app, shopId, work);
const newWarehouse = (shopId: string) => inTheShop((tx) => addWarehouse(tx, shopId), shopId);

beforeAll(async () => {
  warehouseId = await newWarehouse(shop.shopId);
});

const TOKEN_A = `ghn-${randomBytes(12).toString('hex')}`;
const TOKEN_B = `ghtk-${randomBytes(12).toString('hex')}`;

const inputA = (): ConnectCarrierInput => ({
  carrier: 'carrier_a',
  name: 'GHN Quận 1',
  credentials: { token: TOKEN_A, shopId: 885_123 },
  warehouseId,
  baseUrl: 'http://127.0.0.1:3601',
  pickUp: pickUpAddress,
});
const inputB = (): ConnectCarrierInput => ({
  carrier: 'carrier_b',
  name: 'GHTK',
  credentials: { token: TOKEN_B, clientSource: 'S123456' },
  warehouseId,
  baseUrl: 'https://services.giaohangtietkiem.vn',
  pickUp: pickUpAddress,
});

/** The stored row as the database owner reads it, behind the application. */
const storedRow = async (id: string) => (await db.admin`select * from carrier_connections where id = ${id}`)[0]!;

describe('carrier connections', () => {
  it('round-trip: the adapter side opens exactly what was connected, with the callback secret', async () => {
    const { connectionId, callbackSecret } = await inTheShop((tx) => connectCarrier(tx, shop.shopId, inputA(), testConnectionKeys));
    expect(callbackSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await inTheShop((tx) => carrierConnection(tx, connectionId, testSecretsKey))).toEqual({
      id: connectionId,
      shopId: shop.shopId,
      name: 'GHN Quận 1',
      carrier: 'carrier_a',
      active: true,
      baseUrl: 'http://127.0.0.1:3601',
      pickUp: pickUpAddress,
      warehouseId,
      credentials: { token: TOKEN_A, shopId: 885_123 },
      callbackSecret,
    });
    const b = await inTheShop((tx) => connectCarrier(tx, shop.shopId, inputB(), testConnectionKeys));
    expect((await inTheShop((tx) => carrierConnection(tx, b.connectionId, testSecretsKey))).credentials).toEqual({
      token: TOKEN_B,
      clientSource: 'S123456',
    });
    expect(b.callbackSecret).not.toBe(callbackSecret);
  });

  it('stores no plaintext credential or callback secret: only the encrypted blob and the secret’s hash', async () => {
    const { connectionId, callbackSecret } = await inTheShop((tx) => connectCarrier(tx, shop.shopId, inputB(), testConnectionKeys));
    const row = await storedRow(connectionId);
    const everything = JSON.stringify(row);
    for (const secret of [TOKEN_B, 'S123456', callbackSecret]) {
      expect(everything).not.toContain(secret);
      expect((row.encryptedCredentials as Buffer).includes(Buffer.from(secret))).toBe(false);
    }
    expect(row.callbackSecretHash).toEqual(callbackSecretHash(callbackSecret));
    // Sealed to this connection and this key only.
    await expect(inTheShop((tx) => carrierConnection(tx, connectionId, createSecretKey(randomBytes(32))))).rejects.toThrow();
    const other = await inTheShop((tx) => connectCarrier(tx, shop.shopId, inputA(), testConnectionKeys));
    await db.admin`update carrier_connections set encrypted_credentials = ${row.encryptedCredentials as Buffer} where id = ${other.connectionId}`;
    await expect(inTheShop((tx) => carrierConnection(tx, other.connectionId, testSecretsKey))).rejects.toThrow();
  });

  it('is invisible to another shop (row-level security): not listed, not opened', async () => {
    const { connectionId } = await inTheShop((tx) => connectCarrier(tx, shop.shopId, inputA(), testConnectionKeys));
    const other = await createShopFixture(db.app);
    expect(await inTheShop((tx) => listCarrierConnections(tx), other.shopId)).toEqual([]);
    await expect(inTheShop((tx) => carrierConnection(tx, connectionId, testSecretsKey), other.shopId)).rejects.toMatchObject({
      code: 'not-found',
    });
    await expect(inTheShop((tx) => disconnectCarrier(tx, connectionId), other.shopId)).rejects.toMatchObject({ code: 'not-found' });
  });

  it("refuses another shop's warehouse, and validates the credentials' shape per carrier", async () => {
    const other = await createShopFixture(db.app);
    const foreignWarehouse = await newWarehouse(other.shopId);
    await expect(
      inTheShop((tx) => connectCarrier(tx, shop.shopId, { ...inputA(), warehouseId: foreignWarehouse }, testConnectionKeys)),
    ).rejects.toMatchObject({
      code: 'validation-failed',
      detail: expect.stringMatching(/^warehouseId: no such warehouse/),
    });
    expect(connectCarrierInputSchema.safeParse({ ...inputA(), credentials: { token: 'x', clientSource: 'S1' } }).success).toBe(false);
    expect(connectCarrierInputSchema.safeParse({ ...inputB(), baseUrl: 'ftp://carrier.example' }).success).toBe(false);
    expect(connectCarrierInputSchema.parse({ ...inputB(), name: '  GHTK  ' }).name).toBe('GHTK');
  });

  it('a connection without credentials (older rows, the seed) is listed but unusable: carrier-unavailable', async () => {
    const [row] = await inTheShop(
      (tx) =>
        tx<
          { id: string }[]
        >`insert into carrier_connections (shop_id, carrier, name) values (${shop.shopId}, 'carrier_a', 'Legacy') returning id`,
    );
    await expect(inTheShop((tx) => carrierConnection(tx, row!.id, testSecretsKey))).rejects.toMatchObject({ code: 'carrier-unavailable' });
  });

  it('disconnecting deletes an unused connection and switches off one that has shipments (they still need it)', async () => {
    const unused = await inTheShop((tx) => connectCarrier(tx, shop.shopId, inputA(), testConnectionKeys));
    expect(await inTheShop((tx) => disconnectCarrier(tx, unused.connectionId))).toBe('deleted');
    expect(await db.admin`select 1 from carrier_connections where id = ${unused.connectionId}`).toHaveLength(0);

    const used = await inTheShop((tx) => connectCarrier(tx, shop.shopId, inputB(), testConnectionKeys));
    await inTheShop(async (tx) => {
      const [order] = await tx<
        { id: string }[]
      >`insert into orders (shop_id, code, warehouse_id) values (${shop.shopId}, ${`DH-${randomBytes(3).toString('hex')}`}, ${warehouseId}) returning id`;
      await tx`insert into shipments (shop_id, order_id, connection_id, carrier, tracking_code, status) values (${shop.shopId}, ${order!.id}, ${used.connectionId}, 'carrier_b', 'S1.A1.1', 'pending')`;
    });
    expect(await inTheShop((tx) => disconnectCarrier(tx, used.connectionId))).toBe('switched-off');
    expect(await inTheShop((tx) => carrierConnection(tx, used.connectionId, testSecretsKey))).toMatchObject({
      active: false,
      credentials: { token: TOKEN_B },
    });
  });

  it('GET /carrier-connections shows id, carrier, name and active only: never credentials', async () => {
    const { connectionId, callbackSecret } = await inTheShop((tx) => connectCarrier(tx, shop.shopId, inputB(), testConnectionKeys));
    const { key } = await shop.newKey(['pos.shipping.read']);
    const response = await fetch(`${api.baseUrl}/api/open/v1/carrier-connections`, { headers: bearer(key) });
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const secret of [TOKEN_A, TOKEN_B, 'S123456', '885123', callbackSecret, 'services.giaohangtietkiem'])
      expect(text).not.toContain(secret);
    const { data } = JSON.parse(text) as { data: Record<string, unknown>[] };
    expect(data.find((row) => row.id === connectionId)).toEqual({ id: connectionId, carrier: 'carrier_b', name: 'GHTK', active: true });
    for (const row of data) expect(Object.keys(row).sort()).toEqual(['active', 'carrier', 'id', 'name']);
  });
});
