import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bearer } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { seedDemoShop } from '../../scripts/seed/demo-shop.js';

const { db, api } = useSuite({ api: true });

describe('the demo shop of npm run dev', () => {
  it('is seeded once, keeps its key across runs, and answers every list at once', async () => {
    const keyFile = join(mkdtempSync(join(tmpdir(), 'shopflow-seed-')), 'demo-api-key');
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
    for (const list of [
      '/staff',
      '/roles',
      '/warehouses',
      '/categories',
      '/tags',
      '/payment-methods',
      '/sales-channels',
      '/carrier-connections',
      '/pages',
    ]) {
      expect((await get(list)).data.length, list).toBeGreaterThan(0);
    }
    const [{ variants } = { variants: 0 }] = await db.admin<
      { variants: number }[]
    >`select count(*)::int as variants from variants v join shops s on s.id = v.shop_id where s.slug = 'demo'`;
    expect(variants).toBeGreaterThanOrEqual(100);
  });
});
