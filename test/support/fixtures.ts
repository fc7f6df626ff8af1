import { randomBytes } from 'node:crypto';
import { loadSettings } from '../../config/settings.js';
import type { Sql } from '../../db/client.js';
import { createApplication } from '../../domain/access/applications.js';
import { createShop } from '../../domain/access/shops.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { addMember } from '../../domain/access/users.js';

export interface ShopFixture {
  shopId: string;
  slug: string;
  ownerId: string;
  /** A key of a new application of this shop with `permissions`. */
  newKey: (permissions: string[], name?: string) => Promise<{ key: string; keyId: string; applicationId: string }>;
}

/** A shop with an owner, through the same domain functions the admin CLI uses. */
export async function createShopFixture(sql: Sql): Promise<ShopFixture> {
  const slug = `shop-${randomBytes(4).toString('hex')}`;
  const shop = await createShop(sql, { slug, name: `Shop ${slug}` });
  const owner = await addMember(sql, shop.id, { email: `owner@${slug}.test`, name: 'Owner' });
  return {
    shopId: shop.id,
    slug,
    ownerId: owner.id,
    newKey: async (permissions, name = 'Integration') => {
      const created = await withShop(sql, shop.id, (tx) => createApplication(tx, shop.id, { name, permissions }, owner.id));
      return { key: created.key, keyId: created.keyId, applicationId: created.applicationId };
    },
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * The key that seals signing secrets in the suite: the one of the settings (the development key unless
 * SECRETS_KEY is set), which the worker, relay and admin CLI started as child processes read too.
 */
export const testSecretsKey = loadSettings().secretsKey;
