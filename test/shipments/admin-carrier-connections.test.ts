import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carrierAdapter } from '../../adapters/carriers/carrier-adapters.js';
import { addMember } from '../../domain/access/users.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { callbackSecretHash, carrierConnection } from '../../domain/shipments/index.js';
import { CarrierA } from '../../simulators/carriers/carrier-a.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { adminLogIn, type AdminRequest } from '../support/admin-session.js';
import { connectTestCarrier, testCarrierOptions } from '../support/carriers.js';
import { testSecretsKey } from '../support/fixtures.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';
import { orderRequest, pickUpAddress } from './carrier-order-request.js';

const { db, api, shop } = useSuite({ api: true, shop: true });
const PASSWORD = 'correct horse battery staple';
let simulatorA: CarrierA;
let simulatorB: CarrierB;
let warehouseId: string;
let owner: AdminRequest;

const inTheShop = <T>(work: Parameters<typeof withShop<T>>[2]) => withShop(db.app, shop.shopId, work);
const logIn = (email: string) => adminLogIn(api.baseUrl, { shop: shop.slug, email, password: PASSWORD });
const CALLBACK_URL = /^https:\/\/shopflow\.test\/platform\/carriers\/callbacks\/([A-Za-z0-9_-]{43})$/;

beforeAll(async () => {
  [simulatorA, simulatorB] = await Promise.all([CarrierA.start(), CarrierB.start()]);
  warehouseId = await inTheShop((tx) => addWarehouse(tx, shop.shopId));
  await inTheShop(
    (tx) => tx`insert into roles (shop_id, name, permissions) values
      (${shop.shopId}, 'Shipping', ${['pos.shipping.read']}), (${shop.shopId}, 'Sales', ${['pos.orders.read']})`,
  );
  await addMember(db.app, shop.shopId, { email: 'owner@shop.test', name: 'Owner', password: PASSWORD });
  await addMember(db.app, shop.shopId, { email: 'shipping@shop.test', name: 'Shipping', role: 'Shipping', password: PASSWORD });
  await addMember(db.app, shop.shopId, { email: 'sales@shop.test', name: 'Sales', role: 'Sales', password: PASSWORD });
  owner = await logIn('owner@shop.test');
});
afterAll(async () => {
  await Promise.all([simulatorA?.close(), simulatorB?.close()]);
});

/** A well-formed body connecting carrier B. */
const inputB = () => ({
  carrier: 'carrier_b',
  name: 'GHTK',
  credentials: { token: 't', clientSource: 'S1' },
  warehouseId,
  baseUrl: simulatorB.url,
  pickUp: pickUpAddress,
});
/** A carrier B connection made at the simulator, as a test's own set-up. */
const connectB = async () =>
  (await connectTestCarrier(db.app, shop.shopId, 'carrier_b', simulatorB, { publicBaseUrl: 'https://shopflow.test', warehouseId }))
    .connectionId;
const count = async () => (await db.admin<{ n: number }[]>`select count(*)::int as n from carrier_connections`)[0]!.n;

describe('carrier connections in the admin API', () => {
  it('connects with credentials, shows the callback URL once and the credentials never; the connection then pushes', async () => {
    const account = simulatorA.registerShop();
    const response = await owner('POST', '/carrier-connections', {
      carrier: 'carrier_a',
      name: 'GHN Quận 1',
      credentials: { token: account.token, shopId: account.shopId },
      warehouseId,
      baseUrl: simulatorA.url,
      pickUp: pickUpAddress,
    });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { connection: { id: string }; callbackUrl: string };
    expect(created.connection).toEqual({ id: expect.any(String), carrier: 'carrier_a', name: 'GHN Quận 1', active: true });
    const [, secret] = CALLBACK_URL.exec(created.callbackUrl)!;
    const [stored] = await db.admin<{ callbackSecretHash: Buffer }[]>`
      select callback_secret_hash from carrier_connections where id = ${created.connection.id}`;
    expect(stored!.callbackSecretHash).toEqual(callbackSecretHash(secret!));

    const list = await owner('GET', '/carrier-connections');
    expect(list.status).toBe(200);
    const text = await list.text();
    for (const hidden of [account.token, String(account.shopId), secret!, simulatorA.url]) expect(text).not.toContain(hidden);
    expect(JSON.parse(text)).toEqual({ data: [created.connection] });

    // Registered at the carrier, the URL is where its callbacks go.
    simulatorA.registerShop({ shopId: account.shopId, callbackUrl: created.callbackUrl });
    const opened = await inTheShop((tx) => carrierConnection(tx, created.connection.id, testSecretsKey));
    await carrierAdapter(opened, testCarrierOptions()).create(orderRequest());
    expect(simulatorA.callbacks.list().at(-1)?.url).toBe(created.callbackUrl);
  });

  it('refuses bad input with a 400 problem and changes nothing', async () => {
    const before = await count();
    const good = inputB();
    for (const body of [
      { ...good, credentials: { token: 't', shopId: 1 } },
      { ...good, carrier: 'carrier_c' },
      { ...good, baseUrl: 'ftp://carrier.example' },
      { ...good, name: '  ' },
      { ...good, pickUp: { ...pickUpAddress, district: '' } },
      { ...good, warehouseId: '00000000-0000-4000-8000-000000000000' },
    ]) {
      await expectProblem(await owner('POST', '/carrier-connections', body), 400, 'validation-failed');
    }
    await expectProblem(await owner('DELETE', '/carrier-connections/not-an-id'), 400, 'validation-failed');
    expect(await count()).toBe(before);
  });

  it('disconnects: deleted, then 404; needs the CSRF token', async () => {
    const connectionId = await connectB();
    await expectProblem(
      await owner('DELETE', `/carrier-connections/${connectionId}`, undefined, { csrf: false }),
      403,
      'csrf-token-invalid',
    );
    const response = await owner('DELETE', `/carrier-connections/${connectionId}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ id: connectionId, result: 'deleted' });
    await expectProblem(await owner('DELETE', `/carrier-connections/${connectionId}`), 404, 'not-found');
  });

  it('lets pos.shipping.read read but not change; settings.carriers is needed to connect and disconnect', async () => {
    const shipping = await logIn('shipping@shop.test');
    const sales = await logIn('sales@shop.test');
    expect((await shipping('GET', '/carrier-connections')).status).toBe(200);
    await expectProblem(await sales('GET', '/carrier-connections'), 403, 'insufficient-permission');
    const before = await count();
    const body = inputB();
    await expectProblem(await shipping('POST', '/carrier-connections', body), 403, 'insufficient-permission');
    const connectionId = await connectB();
    await expectProblem(await shipping('DELETE', `/carrier-connections/${connectionId}`), 403, 'insufficient-permission');
    expect(await count()).toBe(before + 1);
    await expectProblem(await fetch(`${api.baseUrl}/api/admin/carrier-connections`), 401, 'not-logged-in');
  });
});

describe('the test fixture connectTestCarrier', () => {
  it('makes an account at the simulator with the callback URL, and a connection that pushes there', async () => {
    const { connectionId, callbackUrl } = await connectTestCarrier(db.app, shop.shopId, 'carrier_b', simulatorB, {
      publicBaseUrl: 'https://shopflow.test/',
    });
    expect(callbackUrl).toMatch(CALLBACK_URL);
    const opened = await inTheShop((tx) => carrierConnection(tx, connectionId, testSecretsKey));
    expect(opened).toMatchObject({ carrier: 'carrier_b', baseUrl: simulatorB.url, active: true });
    const { trackingCode } = await carrierAdapter(opened, testCarrierOptions()).create(orderRequest());
    simulatorB.advance(trackingCode);
    expect(simulatorB.callbacks.list().at(-1)?.url).toBe(callbackUrl);
  });
});
