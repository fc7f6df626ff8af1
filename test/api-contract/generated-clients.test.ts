import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_PREFIX } from '../../api/app.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';
import { withShop } from '../../domain/kernel/index.js';
import { addOrder, addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { temporaryDir } from '../support/temporary-dirs.js';
import {
  generateGoClient,
  generatePythonClient,
  runGoProgram,
  runPythonProgram,
  type ProgramResult,
  type Target,
} from './client-generators.js';

/**
 * The public document as an integrator uses it (issue 30): a Python client (openapi-python-client) and
 * a Go client (oapi-codegen) generated from the served document without hand-editing, each reading
 * the shop and paging through its orders against the real API.
 */

interface Document {
  servers?: { url: string }[];
  paths: Record<string, Record<string, { operationId?: string }>>;
}

const { db, api } = useSuite({ api: true });
const SHOP_NAME = 'Cửa hàng Hoa Sen';
const ORDERS = 5;
const LIMIT = 2;
let workDir: string;
let documentFile: string;
let document: Document;
let serverPath: string;
let target: Target;
let codes: string[];

beforeAll(async () => {
  const shop = await createShopFixture(db.app, { name: SHOP_NAME });
  const { key } = await shop.newKey(['pos.orders.read']);
  codes = await withShop(db.app, shop.shopId, async (tx) => {
    const warehouseId = await addWarehouse(tx, shop.shopId, { name: 'Kho Hà Nội' });
    const product = await addProduct(tx, shop.shopId, { price: '150000', stock: { warehouseId, quantity: '100' } });
    const lines = [{ variantId: product.variants[0]!.id, quantity: '1', unitPrice: '150000' }];
    const created: string[] = [];
    for (let index = 0; index < ORDERS; index++) created.push((await addOrder(tx, shop.shopId, { warehouseId, lines })).code);
    return created;
  });

  const response = await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`);
  expect(response.status).toBe(200);
  const text = await response.text();
  workDir = temporaryDir('shopflow-generated-clients');
  documentFile = join(workDir, 'openapi.json');
  writeFileSync(documentFile, text);
  document = JSON.parse(text) as Document;
  // The paths are relative to the server URL; its path (if any) goes on the test API's origin.
  serverPath = new URL(document.servers?.[0]?.url ?? '/', api.baseUrl).pathname.replace(/\/$/, '');
  target = { baseUrl: `${api.baseUrl}${serverPath}`, key, limit: LIMIT };
});

/** The shop's name, and every order exactly once across pages of at most LIMIT. */
function expectTheShop(result: ProgramResult): void {
  expect(result.shop).toBe(SHOP_NAME);
  for (const page of result.pages) expect(page.length).toBeLessThanOrEqual(LIMIT);
  expect(result.pages.length).toBeGreaterThanOrEqual(Math.ceil(ORDERS / LIMIT));
  expect(result.pages.flat().sort()).toEqual([...codes].sort());
}

describe('a client generated from the public document', () => {
  it('names GET /shop and GET /orders as the programs call them (getShop, listOrders)', () => {
    const operationId = (path: string) => document.paths[`${API_PREFIX}${path}`.slice(serverPath.length)]?.get?.operationId;
    expect({ shop: operationId('/shop'), orders: operationId('/orders') }).toEqual({ shop: 'getShop', orders: 'listOrders' });
  });

  it('in Python (openapi-python-client) reads the shop and pages through the orders', { timeout: 180_000 }, async () => {
    const dir = join(workDir, 'python');
    mkdirSync(dir);
    await generatePythonClient(dir, documentFile);
    expectTheShop(await runPythonProgram(dir, target));
  });

  it('in Go (oapi-codegen) compiles, reads the shop and pages through the orders', { timeout: 300_000 }, async () => {
    const dir = join(workDir, 'go');
    mkdirSync(dir);
    await generateGoClient(dir, documentFile);
    expectTheShop(await runGoProgram(dir, target));
  });
});
