import { GRANTABLE_PERMISSIONS } from '../../domain/access/index.js';
import { updateShopSettings } from '../../domain/access/shops.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import type { TestDatabase } from '../support/database.js';
import type { ShopFixture } from '../support/fixtures.js';

export interface KitShop {
  /** A key holding every grantable permission. */
  key: string;
  warehouseId: string;
  /** Variants with 100 000 in stock each. */
  variantIds: string[];
}

/**
 * The fixture shop made ready for integrations: a warehouse, `variants` products in stock, and a key
 * with every grantable permission. The shop's recompute ceiling is 0 so that the `updatedSince` safety
 * delay is its 15 s margin (spec, Limits) and a test need not wait 2 min 15 s.
 */
export async function kitShop(db: TestDatabase, shop: ShopFixture, variants = 2): Promise<KitShop> {
  const { key } = await shop.newKey([...GRANTABLE_PERMISSIONS]);
  await updateShopSettings(db.app, shop.shopId, { recomputeCeilingSeconds: 0 });
  return withShop(db.app, shop.shopId, async (tx) => {
    const warehouseId = await addWarehouse(tx, shop.shopId);
    const variantIds: string[] = [];
    for (let index = 0; index < variants; index++) {
      const product = await addProduct(tx, shop.shopId, { stock: { warehouseId, quantity: '100000' } });
      variantIds.push(product.variants[0]!.id);
    }
    return { key, warehouseId, variantIds };
  });
}
