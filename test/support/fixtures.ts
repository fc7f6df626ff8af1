import { loadSettings } from '../../config/settings.js';
import type { Sql } from '../../db/client.js';
import { createFlow, type FlowInput } from '../../domain/flows/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { addApplication, newShop, type ShopOptions } from '../../scripts/fixtures/index.js';

export interface ShopFixture {
  shopId: string;
  slug: string;
  ownerId: string;
  /** A key of a new application of this shop with `permissions`. */
  newKey: (permissions: string[], name?: string) => Promise<{ key: string; keyId: string; applicationId: string }>;
  /** A flow of this shop, made by no one in particular (the system), its signing secret sealed by testSecretsKey. */
  newFlow: (flow: FlowInput) => Promise<{ flowId: string; secret: string }>;
}

/** A shop with an owner, made by the fixture builder (scripts/fixtures/), whose keys the owner grants. */
export async function createShopFixture(sql: Sql, options: ShopOptions = {}): Promise<ShopFixture> {
  const { shopId, slug, ownerId } = await newShop(sql, options);
  return {
    shopId,
    slug,
    ownerId,
    newKey: async (permissions, name = 'Integration') => {
      const created = await withShop(sql, shopId, (tx) => addApplication(tx, shopId, { name, permissions, grantedBy: ownerId }));
      return { key: created.key, keyId: created.keyId, applicationId: created.applicationId };
    },
    newFlow: (flow) => withShop(sql, shopId, (tx) => createFlow(tx, shopId, flow, null, testSecretsKey)),
  };
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * The key that seals signing secrets in the suite: the one of the settings (the development key unless
 * SECRETS_KEY is set), which the worker, relay and admin CLI started as child processes read too.
 */
export const testSecretsKey = loadSettings().secretsKey;
