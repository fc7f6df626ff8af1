import { randomBytes } from 'node:crypto';
import { ALL_PERMISSIONS } from '../../domain/access/permissions.js';
import { createProduct } from '../../domain/catalog/products.js';
import { adjustStock } from '../../domain/inventory/inventory.js';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import { changeOrderStatus } from '../../domain/orders/order-lifecycle.js';
import { createOrder } from '../../domain/orders/orders.js';
import type { Carrier } from '../../domain/shipments/index.js';
import { connectTestCarrier } from '../support/carriers.js';
import type { TestDatabase } from '../support/database.js';
import type { ShopFixture } from '../support/fixtures.js';

/** Everything a key needs to push, read and cancel shipments. */
export const SHIPPING_PERMISSIONS = ['pos.shipping.read', 'pos.orders.read', 'pos.orders.update', 'pos.products.read'];

/** A recipient both simulators serve: Hà Nội, carrier A's district 1484 (Quận Ba Đình). */
export const hanoiAddress = {
  recipientName: 'Trần Thị B',
  recipientPhone: '0912345678',
  addressLine: '123 Nguyễn Chí Thanh',
  provinceName: 'Hà Nội',
  districtName: 'Quận Ba Đình',
  wardName: 'Phường Ngọc Khánh',
};

export interface ShippingShop {
  warehouseId: string;
  /** A connection to each simulator that was given, callbacks registered to the API at `apiBaseUrl`. */
  connections: Partial<Record<Carrier, string>>;
}

/** A warehouse and a connection to each given carrier simulator, whose callbacks reach the API at `apiBaseUrl`. */
export async function connectShipping(
  db: TestDatabase,
  shop: ShopFixture,
  carriers: Partial<Record<Carrier, { url: string }>>,
  apiBaseUrl: string,
): Promise<ShippingShop> {
  const [warehouse] = await withShop(
    db.app,
    shop.shopId,
    (tx) => tx<{ id: string }[]>`insert into warehouses (shop_id, name) values (${shop.shopId}, 'Kho chính') returning id`,
  );
  const connections: Partial<Record<Carrier, string>> = {};
  for (const [carrier, simulator] of Object.entries(carriers) as [Carrier, { url: string }][]) {
    const options = { publicBaseUrl: apiBaseUrl, warehouseId: warehouse!.id };
    connections[carrier] = (await connectTestCarrier(db.app, shop.shopId, carrier, simulator, options)).connectionId;
  }
  return { warehouseId: warehouse!.id, connections };
}

/**
 * An order ready to ship: one product with `stock` in the warehouse, `quantity` of it ordered to
 * `address` (Hà Nội by default), moved to `ready_to_ship`.
 */
export async function readyOrder(
  db: TestDatabase,
  shop: ShopFixture,
  warehouseId: string,
  options: { stock?: string; quantity?: string; status?: 'new' | 'ready_to_ship'; address?: Record<string, string> } = {},
): Promise<{ orderId: string; variantId: string }> {
  return withShop(db.app, shop.shopId, async (tx: Tx) => {
    const actor = { shopId: shop.shopId, permissions: ALL_PERMISSIONS };
    const product = await createProduct(tx, actor, {
      name: `Áo thun ${randomBytes(3).toString('hex')}`,
      type: 'simple',
      variants: [{ price: '150000', attributes: { Size: 'M' } }],
    });
    const variantId = product.variants[0]!.id;
    await adjustStock(tx, shop.shopId, [{ variantId, warehouseId, quantityDelta: options.stock ?? '10' }]);
    const order = await createOrder(tx, actor, {
      warehouseId,
      shippingAddress: options.address ?? hanoiAddress,
      lines: [{ variantId, quantity: options.quantity ?? '2', unitPrice: '150000' }],
    });
    if ((options.status ?? 'ready_to_ship') === 'ready_to_ship')
      await changeOrderStatus(tx, { ...actor, applicationId: null }, order.id, { status: 'ready_to_ship' });
    return { orderId: order.id, variantId };
  });
}

/** Stock of a variant in a warehouse, as the database holds it. */
export async function stockOf(db: TestDatabase, variantId: string, warehouseId: string): Promise<{ quantity: string; reserved: string }> {
  const [row] = await db.admin<{ quantity: string; reserved: string }[]>`
    select api_decimal(quantity) as quantity, api_decimal(reserved) as reserved from stock where variant_id = ${variantId} and warehouse_id = ${warehouseId}`;
  return row ?? { quantity: '0', reserved: '0' };
}
