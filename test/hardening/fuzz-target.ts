import { withShop } from '../../domain/kernel/index.js';
import { usableMembersOfRole } from '../../domain/orders/order-assignment.js';
import type { Suite } from '../support/suite.js';
import type { FuzzShop } from './fuzz-shop.js';
import type { FuzzTarget } from './schemathesis-run.js';

/** Path prefix of the operations taking an `{id}` → the pool of that kind of record. */
const PATH_IDS: Record<string, string> = {
  '/orders/': 'orders',
  '/products/': 'products',
  '/customers/': 'customers',
  '/shipments/': 'shipments',
  '/inventory/documents/': 'documents',
  '/conversations/': 'conversations',
  '/comments/': 'comments',
};

/**
 * Body fields naming another record → the pool of its ids. A schema-valid id the fuzzer makes up is
 * absent from the shop, which the spec answers 400 `validation-failed` (a business rejection): the
 * schema-valid cases take the seeded shop's ids instead (fuzz_hooks.py).
 */
const REFERENCES: Record<string, string> = {
  variantId: 'variants',
  warehouseId: 'warehouses',
  targetWarehouseId: 'warehouses',
  customerId: 'customers',
  categoryIds: 'categories',
  tagIds: 'tags',
  methodId: 'paymentMethods',
  salesChannelId: 'salesChannels',
  handlerUserId: 'staff',
  handlerRoleId: 'roles',
  provinceUnitId: 'province',
  districtUnitId: 'district',
  wardUnitId: 'ward',
};

/** The seeded shop's ids, read through the Open API as an integrator would. */
export async function fuzzTarget(suite: Pick<Suite, 'api' | 'db' | 'request'>, shop: FuzzShop): Promise<FuzzTarget> {
  const key = Object.values(shop.keys)[0]![0]!;
  const ids = async (path: string, field = 'id', keep = (_row: Record<string, string>) => true) => {
    const response = await suite.request('GET', path, { key });
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    const rows = ((await response.json()) as { data: Record<string, string>[] }).data;
    return [...new Set(rows.filter(keep).map((row) => row[field]!))];
  };
  const [province] = (await ids('/geo/units?system=old&search=Hà Nội')).slice(0, 1);
  const [district] = await ids(`/geo/units?system=old&parentId=${province}`);
  const [ward] = await ids(`/geo/units?system=old&parentId=${district}`);
  const warehouses = await ids('/warehouses');
  const [salesRole] = await ids('/roles', 'id', (role) => role.name === 'Sales');
  const dictionaries: Record<string, string[]> = {
    variants: await ids('/inventory/stock?limit=100', 'variantId'),
    warehouses,
    customers: await ids('/customers?limit=100'),
    categories: await ids('/categories'),
    tags: await ids('/tags'),
    paymentMethods: await ids('/payment-methods'),
    salesChannels: await ids('/sales-channels'),
    // A handler named in an order edit must be able to handle orders (400 otherwise), which the staff
    // list does not say: the usable members of the demo's Sales role, read as the orders module reads them.
    staff: await withShop(suite.db.app, shop.shopId, (tx) => usableMembersOfRole(tx, salesRole!)),
    // An order handed to a role needs a member who may handle orders (400 otherwise).
    roles: [salesRole!],
    province: [province!],
    district: [district!],
    ward: [ward!],
    orders: await ids('/orders?limit=100'),
    products: await ids('/products?limit=100'),
    shipments: await ids('/shipments'),
    documents: shop.documentIds,
    conversations: await ids('/conversations'),
    comments: await ids('/comments'),
  };
  return {
    baseUrl: suite.api.baseUrl,
    keys: shop.keys,
    dictionaries,
    references: REFERENCES,
    operationParameters: Object.entries(PATH_IDS).map(([prefix, dictionary]) => ({
      pathRegex: `^/api/open/v1${prefix.replaceAll('/', '\\/')}\\{id\\}`,
      parameters: { 'path.id': { dictionary, probability: 0.9 } },
    })),
  };
}
