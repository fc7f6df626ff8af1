import { randomBytes } from 'node:crypto';
import { GRANTABLE_PERMISSIONS } from '../../domain/access/permissions.js';
import { updateShopSettings } from '../../domain/access/shops.js';
import { createProduct } from '../../domain/catalog/products.js';
import { adjustStock } from '../../domain/inventory/inventory.js';
import { withShop } from '../../domain/kernel/tenancy.js';
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
    const actor = { shopId: shop.shopId, permissions: [...GRANTABLE_PERMISSIONS] };
    const [warehouse] = await tx<
      { id: string }[]
    >`insert into warehouses (shop_id, name) values (${shop.shopId}, 'Kho chính') returning id`;
    const variantIds: string[] = [];
    for (let index = 0; index < variants; index++) {
      const product = await createProduct(tx, actor, {
        name: `Áo ${randomBytes(3).toString('hex')}`,
        type: 'simple',
        variants: [{ price: '100000' }],
      });
      variantIds.push(product.variants[0]!.id);
      await adjustStock(tx, shop.shopId, [{ variantId: product.variants[0]!.id, warehouseId: warehouse!.id, quantityDelta: '100000' }]);
    }
    return { key, warehouseId: warehouse!.id, variantIds };
  });
}
