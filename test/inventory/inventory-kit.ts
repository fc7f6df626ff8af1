import { beforeAll, expect } from 'vitest';
import type { StockRow } from '../../domain/inventory/inventory.js';
import type { InventoryDocument as Document } from '../../domain/inventory/inventory-documents.js';
import { withShop, type Tx } from '../../domain/kernel/tenancy.js';
import { addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import { useSuite } from '../support/suite.js';

/**
 * The inventory tests' suite (API and shop), a key with inventory and product read, and the helpers
 * that arrange warehouses and products, create and post documents and read stock back. `keys` is
 * filled in place by a `beforeAll`, like `useSuite`'s parts.
 */
export function useInventorySuite() {
  const { db, api, shop, request } = useSuite({ api: true, shop: true });
  /** inventory: pos.inventory.read, pos.inventory.update and pos.products.read. */
  const keys = { inventory: '' };

  beforeAll(async () => {
    keys.inventory = (await shop.newKey(['pos.inventory.read', 'pos.inventory.update', 'pos.products.read'])).key;
  });

  const call = (method: string, path: string, body?: unknown, withKey = keys.inventory) => request(method, path, { key: withKey, body });

  const arrange = <T>(work: (tx: Tx) => Promise<T>, shopId = shop.shopId) => withShop(db.app, shopId, work);

  const newWarehouse = (name = 'Warehouse', shopId = shop.shopId): Promise<string> =>
    arrange((tx) => addWarehouse(tx, shopId, { name }), shopId);

  /** A product with `variants` variants, told apart by their attribute `Option`. */
  async function newProduct(
    options: { variants?: number; type?: 'simple' | 'service'; shopId?: string } = {},
  ): Promise<{ productId: string; variantIds: string[] }> {
    const shopId = options.shopId ?? shop.shopId;
    const variants = Array.from({ length: options.variants ?? 1 }, (_, index) => ({ Option: String(index + 1) }));
    const product = await arrange((tx) => addProduct(tx, shopId, { type: options.type, variants }), shopId);
    return { productId: product.id, variantIds: product.variants.map((variant) => variant.id) };
  }

  async function createDocument(body: Record<string, unknown>): Promise<Document> {
    const response = await call('POST', '/inventory/documents', body);
    expect(response.status, JSON.stringify(await response.clone().json())).toBe(201);
    return (await response.json()) as Document;
  }

  async function postDocument(id: string): Promise<Document> {
    const response = await call('POST', `/inventory/documents/${id}/post`);
    expect(response.status, JSON.stringify(await response.clone().json())).toBe(200);
    return (await response.json()) as Document;
  }

  /** Creates and posts a receipt. */
  async function receive(warehouseId: string, lines: { variantId: string; quantity: string }[]): Promise<Document> {
    return postDocument((await createDocument({ kind: 'receipt', warehouseId, lines })).id);
  }

  async function stockPage(query: string): Promise<{ data: StockRow[]; nextCursor: string | null }> {
    const response = await call('GET', `/inventory/stock?${query}`);
    expect(response.status, JSON.stringify(await response.clone().json())).toBe(200);
    return (await response.json()) as { data: StockRow[]; nextCursor: string | null };
  }

  async function stockOf(warehouseId: string): Promise<StockRow[]> {
    return (await stockPage(`warehouseId=${warehouseId}&limit=100`)).data;
  }

  async function stockIdOf(variantId: string, warehouseId: string): Promise<string> {
    const [row] = await arrange(
      (tx) => tx<{ id: string }[]>`select id from stock where variant_id = ${variantId} and warehouse_id = ${warehouseId}`,
    );
    return row!.id;
  }

  const stockEvents = (resourceIds: string[]) =>
    arrange(
      (tx) => tx<{ type: string; resourceId: string; changes: unknown; data: StockRow }[]>`
      select type, resource_id, changes, data from events where resource_id = any(${resourceIds}::uuid[]) order by id`,
    );

  const documentCount = async () =>
    (await arrange((tx) => tx<{ count: number }[]>`select count(*)::int as count from inventory_documents`))[0]!.count;

  return {
    db,
    api,
    shop,
    keys,
    call,
    arrange,
    newWarehouse,
    newProduct,
    createDocument,
    postDocument,
    receive,
    stockPage,
    stockOf,
    stockIdOf,
    stockEvents,
    documentCount,
  };
}
