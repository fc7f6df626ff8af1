import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearer, testSecretsKey } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { seedDemoShop } from '../../scripts/seed/demo-shop.js';
import { seedDemoCarriers } from '../../scripts/seed/demo-carriers.js';
import { carrierAdapter } from '../../adapters/carriers/carrier-adapters.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { carrierCallbackUrl, carrierConnection } from '../../domain/shipments/index.js';
import { CarrierA } from '../../simulators/carriers/carrier-a.js';
import { CarrierB } from '../../simulators/carriers/carrier-b.js';
import { orderRequest } from '../shipments/carrier-order-request.js';
import { testCarrierOptions, testConnectionKeys } from '../support/carriers.js';
import { temporaryDir } from '../support/temporary-dirs.js';

const { db, api } = useSuite({ api: true });

describe('the demo shop of npm run dev', () => {
  it('is seeded once, keeps its key across runs, and answers every list at once', async () => {
    const keyFile = join(temporaryDir('shopflow-seed'), 'demo-api-key');
    const first = await seedDemoShop(db.app, keyFile);
    const second = await seedDemoShop(db.app, keyFile);
    expect(second).toEqual(first);
    const [{ shops } = { shops: 0 }] = await db.admin<{ shops: number }[]>`select count(*)::int as shops from shops where slug = 'demo'`;
    expect(shops).toBe(1);

    const get = async (path: string) => {
      const response = await fetch(`${api.baseUrl}/api/open/v1${path}`, { headers: bearer(first.key) });
      expect(response.status, path).toBe(200);
      return (await response.json()) as { data: unknown[] };
    };
    expect((await get('/products?limit=100')).data.length).toBeGreaterThanOrEqual(19);
    expect((await get('/customers?limit=100')).data).toHaveLength(20);
    expect((await get('/inventory/stock?limit=100')).data.length).toBeGreaterThanOrEqual(100);
    for (const list of ['/staff', '/roles', '/warehouses', '/categories', '/tags', '/payment-methods', '/sales-channels', '/pages']) {
      expect((await get(list)).data.length, list).toBeGreaterThan(0);
    }
    const [{ variants } = { variants: 0 }] = await db.admin<
      { variants: number }[]
    >`select count(*)::int as variants from variants v join shops s on s.id = v.shop_id where s.slug = 'demo'`;
    expect(variants).toBeGreaterThanOrEqual(100);
  });
});

describe('the demo shop’s carriers (npm run dev)', () => {
  it('connects both simulators once, replaces a credential-less row, and registers the account again after a simulator restart', async () => {
    const { shopId } = await seedDemoShop(db.app, join(temporaryDir('shopflow-seed'), 'demo-api-key'));
    const [legacy] = await withShop(
      db.app,
      shopId,
      (tx) =>
        tx<
          { id: string }[]
        >`insert into carrier_connections (shop_id, carrier, name) values (${shopId}, 'carrier_a', 'Carrier A (simulator)') returning id`,
    );
    let simulatorA = await CarrierA.start();
    const simulatorB = await CarrierB.start();
    const keys = { ...testConnectionKeys, publicBaseUrl: 'https://shopflow.test' };
    const urls = () => ({ carrier_a: simulatorA.url, carrier_b: simulatorB.url });
    try {
      const first = await seedDemoCarriers(db.app, shopId, urls(), keys);
      expect(first.map((connection) => connection.carrier)).toEqual(['carrier_a', 'carrier_b']);
      expect(first.map((connection) => connection.connectionId)).not.toContain(legacy!.id);
      expect(await seedDemoCarriers(db.app, shopId, urls(), keys)).toEqual(first);
      expect(await db.admin`select 1 from carrier_connections where shop_id = ${shopId}`).toHaveLength(2);

      // A new simulator on the same address knows no account until the next start registers it again.
      const { port } = new URL(simulatorA.url);
      await simulatorA.close();
      simulatorA = await CarrierA.start({ port: Number(port) });
      expect(await seedDemoCarriers(db.app, shopId, urls(), keys)).toEqual(first);
      const opened = await withShop(db.app, shopId, (tx) => carrierConnection(tx, first[0]!.connectionId, testSecretsKey));
      await carrierAdapter(opened, testCarrierOptions()).create(orderRequest());
      expect(simulatorA.callbacks.list().at(-1)?.url).toBe(carrierCallbackUrl(keys.publicBaseUrl, opened.callbackSecret));
    } finally {
      await Promise.all([simulatorA.close(), simulatorB.close()]);
    }
  });
});
