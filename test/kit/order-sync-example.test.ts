import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShopflowClient } from '../../clients/typescript/src/index.js';
import { LocalCopy } from '../../examples/order-sync/local-copy.js';
import { testEnv } from '../support/environment.js';
import { useSuite } from '../support/suite.js';
import { kitShop, type KitShop } from './kit-shop.js';
import { installedExample } from './packed-client.js';
import { temporaryDir } from '../support/temporary-dirs.js';

// Deliveries missed while the example is down are retried for about 25 s.
const { db, api, shop, request } = useSuite({
  api: true,
  shop: true,
  worker: true,
  relay: { retryDelaysMs: [500, 1000, 2000, 4000, 8000, 10000] },
});
const dbFile = join(temporaryDir('order-sync'), 'orders.sqlite');
let ready: KitShop;
let example: ChildProcess | undefined;
let port = 0;
const secrets: string[] = [];
let exampleKey = '';
/** The example's folder, installed with the packed client (not the repository's source). */
let exampleDir = '';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: chosen } = server.address() as { port: number };
      server.close(() => resolve(chosen));
    });
  });

/** Starts examples/order-sync as its own process; resolves once it listens. */
function startExample(): Promise<void> {
  example = spawn(process.execPath, ['--import', 'tsx', 'main.ts'], {
    cwd: exampleDir,
    env: {
      ...process.env,
      SHOPFLOW_URL: api.baseUrl,
      SHOPFLOW_API_KEY: exampleKey,
      WEBHOOK_SECRETS: secrets.join(','),
      PORT: String(port),
      ORDER_SYNC_DB: dbFile,
      SYNC_INTERVAL_MS: '2000',
      TLS_CERT_FILE: testEnv('SIMULATOR_TLS_CERT_FILE'),
      TLS_KEY_FILE: testEnv('SIMULATOR_TLS_KEY_FILE'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve) => example!.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('listening') && resolve()));
}

beforeAll(async () => {
  exampleDir = await installedExample();
  ready = await kitShop(db, shop, 1);
  exampleKey = (await shop.newKey(['pos.orders.read'], 'order-sync')).key;
  port = await freePort();
  for (const eventType of ['order.created', 'order.updated', 'order.status_changed', 'order.deleted'] as const) {
    const created = await shop.newFlow({ name: eventType, eventType, url: `https://localhost:${port}/`, state: 'on' });
    secrets.push(created.secret);
  }
}, 600_000);
afterAll(() => void example?.kill('SIGKILL'));

const call = async (method: string, path: string, body: unknown) => {
  const response = await request(method, path, { key: ready.key, body });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as { id: string };
};
const createAndEdit = async (index: number) => {
  const { id } = await call('POST', '/orders', {
    warehouseId: ready.warehouseId,
    note: `order ${index}`,
    lines: [{ variantId: ready.variantIds[0]!, quantity: '1', unitPrice: '100000' }],
  });
  await call('PATCH', `/orders/${id}`, { note: `order ${index}, edited` });
};

describe('examples/order-sync', () => {
  it('installs the packed @shopflow/client and compiles against it under strict, without skipLibCheck', { timeout: 300_000 }, async () => {
    const installed = JSON.parse(readFileSync(join(exampleDir, 'node_modules', '@shopflow', 'client', 'package.json'), 'utf8')) as {
      name: string;
    };
    expect(installed.name).toBe('@shopflow/client');
    // Installed from the tarball, not linked to the repository's source.
    expect(lstatSync(join(exampleDir, 'node_modules', '@shopflow', 'client')).isSymbolicLink()).toBe(false);
    expect(existsSync(join(exampleDir, 'node_modules', '@shopflow', 'client', 'src'))).toBe(false);
    await promisify(execFile)(process.execPath, [join(exampleDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', exampleDir]);
  });

  it(
    'keeps a local copy equal to GET /orders through 200 orders created and edited, killed and restarted mid-way',
    { timeout: 240_000 },
    async () => {
      await startExample();
      for (let index = 0; index < 200; index += 4) {
        await Promise.all([0, 1, 2, 3].map((offset) => createAndEdit(index + offset)));
        if (index === 80) {
          example!.kill('SIGKILL'); // mid-way, whatever it was doing
          await new Promise((resolve) => example!.once('exit', resolve));
        }
        if (index === 120) await startExample();
      }
      const client = createShopflowClient({ baseUrl: api.baseUrl, apiKey: exampleKey });
      const remote = async () => {
        const rows = [];
        for await (const row of client.paginate('/orders', { query: { limit: 100 } })) rows.push(row);
        return rows;
      };
      const expected = (await remote()).sort((a, b) => (a.id < b.id ? -1 : 1));
      expect(expected.length).toBe(200);
      // Every change is already in the API; the copy catches up through redelivered webhooks and sync passes.
      const localOrders = () => {
        const copy = LocalCopy.open(dbFile);
        try {
          return copy.orders();
        } finally {
          copy.close();
        }
      };
      await expect.poll(localOrders, { timeout: 120_000, interval: 1000 }).toEqual(expected);
    },
  );
});
