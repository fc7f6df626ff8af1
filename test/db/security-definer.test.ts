import { describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { withShop } from '../../domain/kernel/tenancy.js';

const { db } = useSuite();

describe('SECURITY DEFINER functions', () => {
  it("each names its search_path, with pg_temp last, so no caller's temporary object stands in for one of its names", async () => {
    const functions = await db.admin<{ name: string; config: string[] | null }[]>`
      select p.oid::regprocedure::text as name, p.proconfig as config
      from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where p.prosecdef and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\_%'
      order by 1`;
    expect(functions.map((f) => f.name)).toEqual(expect.arrayContaining(['next_order_number()', 'authenticate_request(text,text)']));
    for (const { name, config } of functions) {
      const searchPath = (config ?? []).find((setting) => setting.startsWith('search_path='));
      expect({ name, searchPath }).toEqual({ name, searchPath: expect.stringMatching(/^search_path=.*\bpg_temp$/) });
    }
  });

  it("next_order_number starts a shop's numbers after its real orders, whatever `orders` the caller makes in pg_temp", async () => {
    const shop = await createShopFixture(db.app);
    const code = await withShop(db.app, shop.shopId, async (tx) => {
      // The attack: a temporary `orders` (searched first unless pg_temp is named last) with a high code.
      await tx`create temporary table orders (shop_id uuid, code text) on commit drop`;
      await tx`insert into orders values (${shop.shopId}, 'DH900000')`;
      const [row] = await tx<{ next: string }[]>`select next_order_number()::text as next`;
      return row!.next;
    });
    expect(code).toBe('1');
  });
});
