import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Sql } from '../../db/client.js';
import { seedDemoCatalog } from './demo-catalog.js';
import { addMember, authenticateRequest, createKey, createPage, hashApiKey, rotateKey } from '../../domain/access/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { addApplication, findOrCreateShop, type BuiltShop } from '../fixtures/index.js';

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
  const { shopId } = await findOrCreateShop(
    sql,
    { slug: DEMO_SHOP_SLUG, name: 'Shopflow Demo Fashion', owner: { ...DEMO_OWNER, name: 'Demo Owner' } },
    (shop) => setUpDemoShop(sql, shop),
  );
  await seedDemoCatalog(sql, shopId);
  const stored = existsSync(keyFile) ? readFileSync(keyFile, 'utf8').trim() : '';
  // The request path's own lookup (one hit on the key's general counter): the key works as a request would find it.
  if (stored && (await authenticateRequest(sql, hashApiKey(stored), 'general'))) return { shopId, key: stored };

  const key = await withShop(sql, shopId, async (tx) => {
    const [application] = await tx<{ id: string }[]>`select id from applications where name = 'Demo integration'`;
    if (!application) return (await addApplication(tx, shopId, { name: 'Demo integration', pages: 'all' })).key;
    const [{ live } = { live: 0 }] = await tx<{ live: number }[]>`
      select count(*)::int as live from api_keys where application_id = ${application.id} and revoked_at is null and (expires_at is null or expires_at > now())`;
    return live < 2 ? (await createKey(tx, application.id, null)).key : (await rotateKey(tx, application.id, null, 0)).key;
  });
  writeFileSync(keyFile, key, { mode: 0o600 });
  return { shopId, key };
}

/** The demo shop's staff roles, its two pages and its staff, once, after the builder made it with its owner. */
async function setUpDemoShop(sql: Sql, shop: BuiltShop): Promise<void> {
  await withShop(sql, shop.shopId, async (tx) => {
    // No module function makes a role yet (a shop starts with its Owner role only).
    for (const role of STAFF_ROLES) {
      await tx`insert into roles (shop_id, name, permissions, sees_only_own_orders) values (${shop.shopId}, ${role.name}, ${role.permissions}, ${role.seesOnlyOwnOrders})`;
    }
    for (const page of ['Demo Fashion Fanpage', 'Demo Fashion Outlet']) await createPage(tx, shop.shopId, page);
  });
  for (const member of STAFF) await addMember(sql, shop.shopId, { ...member, password: DEMO_OWNER.password });
}
