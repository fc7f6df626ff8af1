import type { Sql } from '../../db/client.js';
import { addCustomerAddress } from '../../domain/customers/index.js';
import { listGeoUnits } from '../../domain/geography/index.js';
import { adjustStock, type StockMove } from '../../domain/inventory/index.js';
import { GRANTABLE_PERMISSIONS } from '../../domain/access/index.js';
import { createProduct } from '../../domain/catalog/index.js';
import { withShop, type Tx } from '../../domain/kernel/index.js';
import { addCustomer, addWarehouse } from '../fixtures/index.js';

const WAREHOUSES = [
  { name: 'Kho Hà Nội', address: '18 Tam Trinh, Hoàng Mai, Hà Nội' },
  { name: 'Kho TP. Hồ Chí Minh', address: '102 Cộng Hòa, Tân Bình, TP. Hồ Chí Minh' },
];
const CATEGORIES = ['Áo', 'Quần', 'Váy', 'Phụ kiện', 'Dịch vụ'];
const TAGS = ['VIP', 'Giao gấp', 'Khách sỉ', 'Đổi size'];
const PAYMENT_METHODS = [
  { name: 'Tiền mặt', kind: 'cash' },
  { name: 'Chuyển khoản', kind: 'bank_transfer' },
  { name: 'Thu hộ (COD)', kind: 'cod' },
  { name: 'Ví MoMo', kind: 'wallet' },
];
const SALES_CHANNELS = ['Facebook', 'Website', 'Cửa hàng', 'Shopee'];

const GARMENTS = [
  { name: 'Áo thun cổ tròn', category: 'Áo', price: 149000 },
  { name: 'Áo sơ mi linen', category: 'Áo', price: 329000 },
  { name: 'Áo polo cá sấu', category: 'Áo', price: 259000 },
  { name: 'Áo khoác gió', category: 'Áo', price: 459000 },
  { name: 'Áo len cổ lọ', category: 'Áo', price: 389000 },
  { name: 'Quần jean slim', category: 'Quần', price: 429000 },
  { name: 'Quần kaki ống đứng', category: 'Quần', price: 359000 },
  { name: 'Quần short thể thao', category: 'Quần', price: 179000 },
  { name: 'Quần tây công sở', category: 'Quần', price: 399000 },
  { name: 'Váy hoa nhí', category: 'Váy', price: 369000 },
  { name: 'Váy công sở chữ A', category: 'Váy', price: 419000 },
  { name: 'Đầm maxi đi biển', category: 'Váy', price: 489000 },
];
const ACCESSORIES = [
  { name: 'Mũ lưỡi trai', price: 119000 },
  { name: 'Thắt lưng da', price: 249000 },
  { name: 'Ví cầm tay', price: 299000 },
  { name: 'Tất cổ ngắn (3 đôi)', price: 59000 },
  { name: 'Khăn lụa', price: 189000 },
  { name: 'Túi tote vải', price: 139000 },
];
const SIZES = ['S', 'M', 'L', 'XL'];
const COLOURS = ['Trắng', 'Đen', 'Xanh navy'];
const CUSTOMERS = [
  'Nguyễn Văn An',
  'Trần Thị Bình',
  'Lê Hoàng Cường',
  'Phạm Thu Dung',
  'Hoàng Minh Đức',
  'Vũ Thị Hà',
  'Đặng Quốc Huy',
  'Bùi Ngọc Lan',
  'Đỗ Thanh Long',
  'Hồ Thị Mai',
  'Ngô Bảo Nam',
  'Dương Thị Oanh',
  'Lý Văn Phúc',
  'Trịnh Thu Quỳnh',
  'Mai Anh Sơn',
  'Tạ Thị Thảo',
  'Châu Văn Uy',
  'Lâm Thị Vân',
  'Phan Đức Vinh',
  'Kiều Thị Xuân',
];

/**
 * The demo shop's catalog, customers and stock, through the same domain functions as the API,
 * so the demo data looks exactly like data integrators will meet. Each part is added only when
 * the shop has none of it yet.
 */
export async function seedDemoCatalog(sql: Sql, shopId: string): Promise<void> {
  await withShop(sql, shopId, async (tx) => {
    if (await isEmpty(tx, 'warehouses')) for (const warehouse of WAREHOUSES) await addWarehouse(tx, shopId, warehouse);
    if (await isEmpty(tx, 'categories'))
      for (const name of CATEGORIES) await tx`insert into categories (shop_id, name) values (${shopId}, ${name})`;
    if (await isEmpty(tx, 'tags')) for (const name of TAGS) await tx`insert into tags (shop_id, name) values (${shopId}, ${name})`;
    if (await isEmpty(tx, 'payment_methods')) {
      for (const method of PAYMENT_METHODS)
        await tx`insert into payment_methods (shop_id, name, kind) values (${shopId}, ${method.name}, ${method.kind})`;
    }
    if (await isEmpty(tx, 'sales_channels'))
      for (const name of SALES_CHANNELS) await tx`insert into sales_channels (shop_id, name) values (${shopId}, ${name})`;
    if (await isEmpty(tx, 'products')) await seedProducts(tx, shopId);
    if (await isEmpty(tx, 'customers')) await seedCustomers(tx, shopId);
  });
}

async function isEmpty(tx: Tx, table: string): Promise<boolean> {
  const [row] = await tx.unsafe<{ empty: boolean }[]>(`select not exists (select 1 from ${table}) as empty`);
  return row!.empty;
}

async function seedProducts(tx: Tx, shopId: string): Promise<void> {
  const writer = { shopId, permissions: GRANTABLE_PERMISSIONS };
  const categories = new Map((await tx<{ id: string; name: string }[]>`select id, name from categories`).map((row) => [row.name, row.id]));
  const warehouses = (await tx<{ id: string }[]>`select id from warehouses order by name`).map((row) => row.id);
  let number = 1;
  const code = () => `DEMO${String(number++).padStart(3, '0')}`;
  const moves: StockMove[] = [];
  for (const garment of GARMENTS) {
    const productCode = code();
    const product = await createProduct(tx, writer, {
      code: productCode,
      name: garment.name,
      categoryIds: [categories.get(garment.category)!],
      variants: COLOURS.slice(0, 2).flatMap((colour) =>
        SIZES.map((size) => ({
          code: `${productCode}-${colour.slice(0, 2).toUpperCase()}-${size}`,
          price: String(garment.price + (size === 'XL' ? 20000 : 0)),
          weightGrams: '300',
          attributes: { Size: size, Màu: colour },
          keywords: [`${productCode.toLowerCase()} ${colour.toLowerCase()} ${size.toLowerCase()}`],
        })),
      ),
    });
    product.variants.forEach((variant, index) =>
      moves.push({
        variantId: variant.id,
        warehouseId: warehouses[index % warehouses.length]!,
        quantityDelta: String(5 + ((index * 7) % 30)),
      }),
    );
  }
  for (const accessory of ACCESSORIES) {
    const product = await createProduct(tx, writer, {
      code: code(),
      name: accessory.name,
      categoryIds: [categories.get('Phụ kiện')!],
      variants: [{ price: String(accessory.price), weightGrams: '150' }],
    });
    for (const warehouseId of warehouses) moves.push({ variantId: product.variants[0]!.id, warehouseId, quantityDelta: '40' });
  }
  await createProduct(tx, writer, {
    code: code(),
    name: 'Sửa đồ theo số đo',
    type: 'service',
    categoryIds: [categories.get('Dịch vụ')!],
    variants: [{ price: '80000' }],
  });
  await adjustStock(tx, shopId, moves);
}

async function seedCustomers(tx: Tx, shopId: string): Promise<void> {
  const [hanoi] = await listGeoUnits(tx, { system: 'new', search: 'ha noi' });
  const wards = hanoi ? await listGeoUnits(tx, { system: 'new', parentId: hanoi.id }) : [];
  for (const [index, name] of CUSTOMERS.entries()) {
    const customer = await addCustomer(tx, shopId, {
      name,
      gender: index % 2 === 0 ? 'male' : 'female',
      phone: `09${String(12345600 + index * 37).padStart(8, '0')}`,
    });
    const ward = wards[(index * 13) % Math.max(wards.length, 1)];
    await addCustomerAddress(tx, shopId, customer.id, {
      recipientName: name,
      recipientPhone: customer.primaryPhone,
      addressLine: `${10 + index} phố Demo`,
      provinceUnitId: hanoi?.id ?? null,
      wardUnitId: ward?.id ?? null,
      provinceName: hanoi ? null : 'Hà Nội',
    });
  }
}
