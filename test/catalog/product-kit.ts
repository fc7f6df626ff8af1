import { randomUUID } from 'node:crypto';
import { beforeAll } from 'vitest';
import { withShop } from '../../domain/kernel/tenancy.js';
import { useSuite } from '../support/suite.js';

/** A product as the API answers it, with the fields the product tests read by name. */
export type Product = {
  id: string;
  code: string;
  variants: { id: string; code: string; price: string; attributes: Record<string, string>; keywords: string[] }[];
} & Record<string, unknown>;

export const FULL = ['pos.products.read', 'pos.products.create', 'pos.products.update', 'pos.products.delete'];

/** A short code no other test uses. */
export const unique = () => randomUUID().slice(0, 8).toUpperCase();

/**
 * The product tests' suite (API and shop), a key with every product permission and two categories of
 * the shop, with the helpers that create products and read events back. `keys` and `categoryIds` are
 * filled in place by a `beforeAll`, like `useSuite`'s parts.
 */
export function useProductSuite() {
  const { db, shop, request } = useSuite({ api: true, shop: true });
  const keys = { full: '' };
  /** The shop's categories "Áo" and "Nam". */
  const categoryIds: string[] = [];

  beforeAll(async () => {
    keys.full = (await shop.newKey(FULL)).key;
    const rows = await withShop(
      db.app,
      shop.shopId,
      (tx) =>
        tx<{ id: string }[]>`insert into categories (shop_id, name) values (${shop.shopId}, 'Áo'), (${shop.shopId}, 'Nam') returning id`,
    );
    categoryIds.push(...rows.map((row) => row.id));
  });

  const call = (method: string, path: string, body?: unknown, withKey = keys.full) => request(method, path, { key: withKey, body });

  async function create(body: Record<string, unknown>, withKey = keys.full): Promise<Product> {
    const response = await call('POST', '/products', body, withKey);
    if (response.status !== 201) throw new Error(`${response.status} ${await response.text()}`);
    return (await response.json()) as Product;
  }

  const eventsOf = (resourceId: string) =>
    withShop(
      db.app,
      shop.shopId,
      (tx) =>
        tx<
          { type: string; changes: unknown; data: unknown }[]
        >`select type, changes, data from events where resource_id = ${resourceId} order by id`,
    );

  return { db, shop, keys, categoryIds, call, create, eventsOf };
}
