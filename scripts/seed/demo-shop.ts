import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Sql } from '../../db/client.js';
import { seedDemoCatalog } from './demo-catalog.js';
import {
  addMember,
  authenticateRequest,
  createApplication,
  createKey,
  createShop,
  findShop,
  GRANTABLE_PERMISSIONS,
  hashApiKey,
  rotateKey,
} from '../../domain/access/index.js';
import { Problem, withShop } from '../../domain/kernel/index.js';

export const DEMO_SHOP_SLUG = 'demo';
export const DEMO_OWNER = { email: 'owner@demo.shopflow.test', password: 'shopflow-demo' };

const STAFF_ROLES = [
  {
    name: 'Sales',
    permissions: [
      'pos.orders.read',
      'pos.orders.create',
      'pos.orders.update',
      'pos.customers.read',
      'pos.customers.create',
      'pos.products.read',
    ],
    seesOnlyOwnOrders: true,
  },
  {
    name: 'Warehouse',
    permissions: ['pos.orders.read', 'pos.products.read', 'pos.inventory.read', 'pos.inventory.update', 'pos.shipping.read'],
    seesOnlyOwnOrders: false,
  },
];
const STAFF = [
  { email: 'lan@demo.shopflow.test', name: 'Nguyễn Thị Lan', role: 'Sales' },
  { email: 'minh@demo.shopflow.test', name: 'Trần Văn Minh', role: 'Sales' },
  { email: 'hoa@demo.shopflow.test', name: 'Lê Thị Hoa', role: 'Warehouse' },
];

/**
 * The demo shop of `npm run dev`, created once, and an API key for it. The plain key is kept in
 * `keyFile` (development only) so every run can print it; a new one is issued when it stopped working.
 */
export async function seedDemoShop(sql: Sql, keyFile: string): Promise<{ shopId: string; key: string }> {
  const shop = await findShop(sql, DEMO_SHOP_SLUG).catch(async (error: unknown) => {
    if (!(error instanceof Problem && error.code === 'not-found')) throw error;
    return createDemoShop(sql);
  });
  await seedDemoCatalog(sql, shop.id);
  const stored = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  // The request path's own lookup (one hit on the key's general counter): the key works as a request would find it.
  if (stored && (await authenticateRequest(sql, hashApiKey(stored), 'general'))) return { shopId: shop.id, key: stored };

  const key = await withShop(sql, shop.id, async (tx) => {
    const [application] = await tx<{ id: string }[]>`select id from applications where name = 'Demo integration'`;
    if (!application) {
      return (
        await createApplication(tx, shop.id, { name: 'Demo integration', permissions: [...GRANTABLE_PERMISSIONS], pages: 'all' }, null)
      ).key;
    }
    const [{ live } = { live: 0 }] = await tx<{ live: number }[]>`
      select count(*)::int as live from api_keys where application_id = ${application.id} and revoked_at is null and (expires_at is null or expires_at > now())`;
    return live < 2 ? (await createKey(tx, application.id, null)).key : (await rotateKey(tx, application.id, null, 0)).key;
  });
  writeFileSync(keyFile, key, { mode: 0o600 });
  return { shopId: shop.id, key };
}

async function createDemoShop(sql: Sql) {
  const shop = await createShop(sql, { slug: DEMO_SHOP_SLUG, name: 'Shopflow Demo Fashion' });
  await withShop(sql, shop.id, async (tx) => {
    for (const role of STAFF_ROLES) {
      await tx`insert into roles (shop_id, name, permissions, sees_only_own_orders) values (${shop.id}, ${role.name}, ${role.permissions}, ${role.seesOnlyOwnOrders})`;
    }
    await tx`insert into pages (shop_id, name) values (${shop.id}, 'Demo Fashion Fanpage'), (${shop.id}, 'Demo Fashion Outlet')`;
  });
  await addMember(sql, shop.id, { email: DEMO_OWNER.email, name: 'Demo Owner', password: DEMO_OWNER.password });
  for (const member of STAFF) await addMember(sql, shop.id, { ...member, password: DEMO_OWNER.password });
  return shop;
}
