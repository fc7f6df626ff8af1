import { beforeAll, describe, expect, it } from 'vitest';
import { withShop } from '../../domain/kernel/tenancy.js';
import { callbackSecretHash, carrierConnection } from '../../domain/shipments/index.js';
import { adminCliJson, runAdminCli } from '../support/admin-cli.js';
import { testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { addWarehouse } from '../../scripts/fixtures/index.js';

const { db, shop } = useSuite({ shop: true });
const env = { PUBLIC_BASE_URL: 'https://shopflow.test' };
const admin = (args: string[], extra: Record<string, string> = {}) => runAdminCli(db.appUrl, args, { ...env, ...extra });
let warehouseId: string;

beforeAll(async () => {
  warehouseId = await withShop(db.app, shop.shopId, (tx) => addWarehouse(tx, shop.shopId));
});

const connect = (carrier: string, ...more: string[]) => [
  'carrier:connect',
  '--shop',
  shop.slug,
  '--carrier',
  carrier,
  '--name',
  `${carrier} CLI`,
  '--warehouse',
  warehouseId,
  '--base-url',
  'http://127.0.0.1:3601',
  ...['--pick-up-name', 'Shop Hoa Mai', '--pick-up-phone', '0911222333', '--pick-up-street', '590 CMT8'],
  ...['--pick-up-district', 'Quận 3', '--pick-up-province', 'Hồ Chí Minh'],
  ...more,
];
const count = async () => (await db.admin<{ n: number }[]>`select count(*)::int as n from carrier_connections`)[0]!.n;

describe('carrier:connect and carrier:disconnect', () => {
  it('connects carrier A with the token from CARRIER_TOKEN, printing the connection id and the callback URL', async () => {
    const result = await admin(connect('carrier_a', '--carrier-shop-id', '885123'), { CARRIER_TOKEN: 'ghn-secret-token' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).not.toContain('ghn-secret-token');
    const { connectionId, callbackUrl } = JSON.parse(result.stdout) as { connectionId: string; callbackUrl: string };
    const [, secret] = /^https:\/\/shopflow\.test\/platform\/carriers\/callbacks\/([A-Za-z0-9_-]{43})$/.exec(callbackUrl)!;
    const opened = await withShop(db.app, shop.shopId, (tx) => carrierConnection(tx, connectionId, testSecretsKey));
    expect(opened).toMatchObject({ carrier: 'carrier_a', warehouseId, credentials: { token: 'ghn-secret-token', shopId: 885_123 } });
    expect(callbackSecretHash(opened.callbackSecret)).toEqual(callbackSecretHash(secret!));
  });

  it('connects carrier B with --token and --client-source, and disconnects it', async () => {
    const { connectionId } = await adminCliJson(
      db.appUrl,
      connect('carrier_b', '--token', 'ghtk-token', '--client-source', 'S123456'),
      env,
    );
    const opened = await withShop(db.app, shop.shopId, (tx) => carrierConnection(tx, connectionId!, testSecretsKey));
    expect(opened.credentials).toEqual({ token: 'ghtk-token', clientSource: 'S123456' });
    expect(await adminCliJson(db.appUrl, ['carrier:disconnect', '--shop', shop.slug, '--connection', connectionId!], env)).toEqual({
      connectionId,
      result: 'deleted',
    });
    expect(await admin(['carrier:disconnect', '--shop', shop.slug, '--connection', connectionId!])).toMatchObject({ code: 1, stdout: '' });
  });

  it('exits 2 on bad input and 1 on a refused one, connecting nothing', async () => {
    const before = await count();
    for (const args of [
      connect('carrier_a', '--token', 't'),
      connect('carrier_b', '--client-source', 'S1'),
      connect('carrier_c', '--token', 't'),
      connect('carrier_b', '--token', 't', '--client-source', 'S1').map((arg) => (arg === 'http://127.0.0.1:3601' ? 'ftp://x' : arg)),
      connect('carrier_a', '--token', 't', '--carrier-shop-id', 'many'),
      ['carrier:disconnect', '--shop', shop.slug, '--connection', 'not-an-id'],
    ]) {
      expect(await admin(args), args.join(' ')).toMatchObject({ code: 2, stdout: '' });
    }
    const elsewhere = connect('carrier_b', '--token', 't', '--client-source', 'S1').map((arg) =>
      arg === warehouseId ? '00000000-0000-4000-8000-000000000000' : arg,
    );
    expect(await admin(elsewhere)).toMatchObject({ code: 1, stdout: '' });
    expect(
      await admin(connect('carrier_b', '--token', 't', '--client-source', 'S1').map((arg) => (arg === shop.slug ? 'no-shop' : arg))),
    ).toMatchObject({
      code: 1,
      stdout: '',
    });
    expect(await count()).toBe(before);
  });
});
