import { describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { withShop } from '../../domain/kernel/tenancy.js';

const { db } = useSuite();

describe('row-level security', () => {
  it('the application role is neither superuser nor BYPASSRLS', async () => {
    const [role] = await db.app<{ rolsuper: boolean; rolbypassrls: boolean }[]>`
      select rolsuper, rolbypassrls from pg_roles where rolname = current_user`;
    expect(role).toEqual({ rolsuper: false, rolbypassrls: false });
  });

  it("the key lookup's own role cannot log in, bypasses nothing, owns only authenticate_request and is not the application's", async () => {
    const [role] = await db.admin<{ rolcanlogin: boolean; rolsuper: boolean; rolbypassrls: boolean; appIsMember: boolean }[]>`
      select rolcanlogin, rolsuper, rolbypassrls, pg_has_role('shopflow_app', oid, 'member') as app_is_member
      from pg_roles where rolname = 'shopflow_authenticator'`;
    expect(role).toEqual({ rolcanlogin: false, rolsuper: false, rolbypassrls: false, appIsMember: false });
    const owned = await db.admin<{ name: string }[]>`
      select proname as name from pg_proc where proowner = 'shopflow_authenticator'::regrole
      union all select relname from pg_class where relowner = 'shopflow_authenticator'::regrole`;
    expect(owned).toEqual([{ name: 'authenticate_request' }]);
    // Through the function the application role reaches one key's row by its hash, and nothing more.
    const shop = await createShopFixture(db.app);
    await shop.newKey(['pos.orders.read']);
    const [keys] = await db.app<{ count: number }[]>`select count(*)::int as count from api_keys`;
    expect(keys!.count).toBe(0);
    await expect(db.app`select * from authenticate_request(${'0'.repeat(64)}, 'general')`).resolves.toHaveLength(0);
  });

  it('puts every table with a shop_id, and shops itself, under forced row-level security', async () => {
    const tables = await db.admin<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }[]>`
      select c.relname, c.relrowsecurity, c.relforcerowsecurity
      from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind = 'r'
        -- The relay's work list and the events it set aside hold ids and the failure's reason only, and
        -- are read across shops by design (the relay, the operator's admin CLI).
        and c.relname not in ('event_queue', 'events_set_aside')
        and (c.relname = 'shops' or exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'shop_id' and not a.attisdropped))`;
    expect(tables.length).toBeGreaterThanOrEqual(9);
    for (const table of tables) expect(table, table.relname).toMatchObject({ relrowsecurity: true, relforcerowsecurity: true });
  });

  it("an unknown API key finds nothing and leaves the transaction's shop setting alone", async () => {
    const shop = await createShopFixture(db.app);
    const [result] = await db.app.begin(async (tx) => {
      await tx`select set_config('app.shop_id', ${shop.shopId}, true)`;
      const found = await tx`select * from authenticate_request(${'0'.repeat(64)}, 'general')`;
      const [setting] = await tx<{ shopId: string }[]>`select current_setting('app.shop_id', true) as shop_id`;
      return [{ found: found.length, shopId: setting!.shopId }];
    });
    expect(result).toEqual({ found: 0, shopId: shop.shopId });
  });

  it('shows the application role no shop rows at all without app.shop_id', async () => {
    const shop = await createShopFixture(db.app);
    await shop.newKey(['pos.orders.read']);
    const tables = [
      'shops',
      'users',
      'roles',
      'shop_members',
      'applications',
      'api_keys',
      'shop_log',
      'pages',
      'idempotency_keys',
      'events',
    ];
    const [ownerView] = await db.admin<{ count: number }[]>`select count(*)::int as count from applications`;
    expect(ownerView!.count).toBeGreaterThan(0);
    for (const table of tables) {
      const [row] = await db.app.unsafe<{ count: number }[]>(`select count(*)::int as count from ${table}`);
      expect(row!.count, table).toBe(0);
    }
  });

  it('hides another shop’s record even when its id is known', async () => {
    const [a, b] = [await createShopFixture(db.app), await createShopFixture(db.app)];
    const { applicationId: ofB } = await b.newKey(['pos.orders.read']);
    const seenFromA = await withShop(db.app, a.shopId, (tx) => tx`select id from applications where id = ${ofB}`);
    const seenFromB = await withShop(db.app, b.shopId, (tx) => tx`select id from applications where id = ${ofB}`);
    expect(seenFromA).toHaveLength(0);
    expect(seenFromB).toHaveLength(1);
    await expect(withShop(db.app, a.shopId, (tx) => tx`insert into pages (shop_id, name) values (${b.shopId}, 'sneaky')`)).rejects.toThrow(
      /row-level security/,
    );
  });
});
