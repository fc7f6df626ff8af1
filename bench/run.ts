import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSql } from '../db/client.js';
import { createKey } from '../domain/access/index.js';
import { withShop } from '../domain/kernel/index.js';
import { bootstrapDatabase, bootstrapTemporal } from '../scripts/bootstrap/index.js';
import { dataDir } from '../scripts/bootstrap/paths.js';
import { addApplication, newShop } from '../scripts/fixtures/index.js';
import { say, step } from '../scripts/bootstrap/progress.js';
import { createBenchContext } from './context.js';
import { getShopScenario } from './scenarios/get-shop.js';
import { metricsCostScenario } from './scenarios/metrics-cost.js';
import { bigProductListScenario, productDetailScenario, productListScenario, syncPassScenario } from './scenarios/products.js';
import { bigProductsShop } from './big-products-fixture.js';
import { catalogShop, CATALOG_SIZE } from './catalog-fixture.js';
import { freshBenchKeys } from './bench-keys.js';
import { ordersShop } from './orders-fixture.js';
import { orderScenarios } from './scenarios/orders.js';
import { deliveryScenario } from './scenarios/delivery.js';
import { temporalCeilingScenario } from './scenarios/temporal-ceiling.js';
import { printDeliveryGoals } from './delivery-goals.js';
import { chatScenario } from './scenarios/chat.js';
import { shipmentsScenario } from './scenarios/shipments.js';
import { flowMatchingScenario } from './scenarios/flow-matching.js';
import { flowHealthScenario } from './scenarios/flow-health.js';
import { enginesScenario } from './scenarios/engines.js';
import { pushPatternsScenario } from './scenarios/push-patterns.js';
import { neighboursScenario } from './scenarios/neighbours.js';
import { PHASE_SECONDS } from './scenarios/neighbours-report.js';

/**
 * `npm run bench`: each scenario beside its baseline, measured in the same run on this machine.
 * BENCH_DURATION (seconds, default 10) and BENCH_CONNECTIONS (default 50) tune the load;
 * BENCH_ONLY (comma-separated: shop, metrics, products, big-products, orders, delivery, delivery-pair, chat, shipments, flow-matching, flow-health, engines, push-patterns, neighbours) runs a subset.
 */
const SCENARIOS = [
  'shop',
  'metrics',
  'products',
  'big-products',
  'orders',
  'delivery',
  'delivery-pair',
  'chat',
  'shipments',
  'flow-matching',
  'flow-health',
  'engines',
  'push-patterns',
  'neighbours',
] as const;
const only = process.env.BENCH_ONLY?.split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const unknown = only?.filter((name) => !(SCENARIOS as readonly string[]).includes(name)) ?? [];
if (unknown.length > 0) {
  process.stderr.write(`BENCH_ONLY: unknown scenario ${unknown.join(', ')} (choose from ${SCENARIOS.join(', ')})\n`);
  process.exit(2);
}
const selected = (scenario: (typeof SCENARIOS)[number]) => !only || only.includes(scenario);
// Development settings for the bench's own set-up (its servers are started with test settings, bench/context.ts).
process.env.NODE_ENV ??= 'development';
const database = await bootstrapDatabase('shopflow_bench');
const sql = createSql(database.appUrl, { max: 5, applicationName: 'shopflow-bench' });
const ownerSql = createSql(database.adminUrl, { max: 1, applicationName: 'shopflow-bench-maintenance' });

const keys = await step('creating benchmark shops and keys', async () => {
  const created: string[] = [];
  const run = Date.now().toString(36);
  for (let shopIndex = 0; shopIndex < 10; shopIndex += 1) {
    const shop = await newShop(sql, { slug: `bench-${run}-${shopIndex}`, name: `Benchmark shop ${shopIndex}` });
    await withShop(sql, shop.shopId, async (tx) => {
      for (let appIndex = 0; appIndex < 10; appIndex += 1) {
        const application = await addApplication(tx, shop.shopId, {
          name: `Bench app ${appIndex}`,
          permissions: ['pos.orders.read', 'pos.products.read', 'pos.customers.read'],
        });
        created.push(application.key, (await createKey(tx, application.applicationId, null)).key);
      }
    });
  }
  return created;
});

const context = createBenchContext({
  env: {
    DATABASE_URL: database.adminUrl,
    APP_DATABASE_URL: database.appUrl,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS ?? '127.0.0.1:7233',
    // Every outside service of the bench is a simulator on loopback, which the outbound policy refuses unless told.
    OUTBOUND_ALLOW_LOOPBACK: 'true',
  },
  keys,
  durationSeconds: Number(process.env.BENCH_DURATION ?? 10),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 50),
});

const results: Record<string, unknown> = {};
if (selected('shop')) {
  say('\n== GET /shop ==');
  results.getShop = await getShopScenario(context);
}

if (selected('metrics')) {
  say('\n== What collecting metrics costs the API: GET /shop with METRICS=off and on ==');
  results.metricsCost = await metricsCostScenario(context);
}

if (selected('products')) {
  const catalogShopId = await catalogShop(sql, ownerSql);
  const catalogContext = { ...context, keys: await freshBenchKeys(sql, catalogShopId) };
  say('\n== GET /products?limit=100 (100,000 products in the shop) ==');
  results.productList = await productListScenario(catalogContext, catalogShopId);
  say('\n== updatedSince sync of 100,000 products ==');
  results.productSync = await syncPassScenario(catalogContext, CATALOG_SIZE);
}

if (selected('big-products')) {
  const bigProducts = await bigProductsShop(sql, ownerSql);
  const bigContext = { ...context, keys: await freshBenchKeys(sql, bigProducts.shopId) };
  say('\n== GET /products/{id} (one product of 2,000 variants) ==');
  results.productDetail = await productDetailScenario(bigContext, bigProducts);
  say('\n== GET /products?limit=100 (100 products of 2,000 variants each) ==');
  results.bigProductList = await bigProductListScenario(bigContext, bigProducts);
}

if (selected('orders')) {
  const orders = await ordersShop(sql, ownerSql);
  const ordersContext = { ...context, keys: await freshBenchKeys(sql, orders.shopId) };
  say('\n== POST /orders and GET /orders?limit=50 (200,000 orders in the shop) ==');
  results.orders = await orderScenarios(ordersContext, orders);
}

/**
 * Before a scenario that starts a relay: what earlier scenarios and runs left queued (the orders,
 * shipments and flow-matching shops' events, which no relay takes there; an interrupted run's) would be
 * relayed beside the scenario's shops as other shops, which would then be paced
 * (docs/behaviour/events.md): 8 receipts a second at 20/s in the delivery scenario, neighbours' B
 * behind its own set-up for a minute (p50 2.2-2.9 s).
 */
const emptyEventQueue = () => ownerSql`delete from event_queue`.then(() => undefined);

/**
 * Runs `work` on the Temporal dev server (started when none runs), from an empty event queue, with the
 * delivery scenario's common options.
 */
async function onTemporal<T>(
  work: (
    temporal: { address: string },
    delivery: { appUrl: string; temporalAddress: string; secondsPerRate: number; baselineConcurrency: number },
  ) => Promise<T>,
): Promise<T> {
  const temporal = await bootstrapTemporal();
  await emptyEventQueue();
  try {
    const secondsPerRate = Number(process.env.BENCH_DELIVERY_SECONDS ?? 10);
    return await work(temporal, {
      appUrl: database.appUrl,
      temporalAddress: temporal.address,
      secondsPerRate,
      baselineConcurrency: context.connections,
    });
  } finally {
    await temporal.stop();
  }
}
const rates = (variable: string, fallback: string) => (process.env[variable] ?? fallback).split(',').map(Number);

if (selected('delivery')) {
  // Webhook delivery: outbox → relay → Temporal → worker → HTTPS receiver, beside direct POSTs.
  // BENCH_DELIVERY_RATE (events/s per phase, default "20,50,100,250"), BENCH_DELIVERY_SECONDS (default 10).
  say('\n== Webhook delivery: commit to receipt (outbox, relay, Temporal, worker, signed HTTPS POST) ==');
  await onTemporal(async (temporal, delivery) => {
    const ceiling = await temporalCeilingScenario({
      temporalAddress: temporal.address,
      seconds: delivery.secondsPerRate,
      concurrency: context.connections,
    });
    const deliveries = await deliveryScenario({ ...delivery, rates: rates('BENCH_DELIVERY_RATE', '20,50,100,250') });
    printDeliveryGoals(ceiling, deliveries.delivery);
    results.temporalCeiling = ceiling;
    results.delivery = deliveries;
  });
}

if (only?.includes('delivery-pair')) {
  // Two workers and two relays on one server: the work spreads over both, and no delivery starts twice.
  // BENCH_DELIVERY_PAIR_RATE (events/s per phase, default "100"). Only when named: it repeats the delivery set-up.
  say('\n== Webhook delivery with two workers and two relays ==');
  results.deliveryPair = await onTemporal((_temporal, delivery) =>
    deliveryScenario({ ...delivery, rates: rates('BENCH_DELIVERY_PAIR_RATE', '100'), pair: true }),
  );
}

if (only?.includes('engines')) {
  // The dev server against the cluster (SHOPFLOW_TEMPORAL=cluster's server): the ceiling and saturated deliveries on each.
  // BENCH_ENGINES_RATE (events/s per phase, default "150": above both); BENCH_DELIVERY_SECONDS. Only when named: it builds the cluster.
  say('\n== The Temporal dev server against the cluster on PostgreSQL: the ceiling and deliveries at saturation ==');
  await emptyEventQueue();
  results.engines = await enginesScenario({
    appUrl: database.appUrl,
    seconds: context.durationSeconds,
    secondsPerRate: Number(process.env.BENCH_DELIVERY_SECONDS ?? 10),
    concurrency: context.connections,
    rates: rates('BENCH_ENGINES_RATE', '150'),
  });
}

if (selected('chat')) {
  say('\n== Chat: sends through the API against the simulator directly; inbound messages to their event ==');
  results.chat = await chatScenario(context, sql);
}

if (selected('shipments')) {
  const temporal = await bootstrapTemporal();
  say('\n== Shipments: pushes through the API against the carrier simulator directly; callbacks to the shipment state ==');
  try {
    results.shipments = await shipmentsScenario(context, sql, { temporalAddress: temporal.address, appUrl: database.appUrl });
  } finally {
    await temporal.stop();
  }
}

if (only?.includes('push-patterns')) {
  // Only when named: a model of a push's engine paths (docs/behaviour/shipments.md), not a figure of Shopflow's own.
  const temporal = await bootstrapTemporal();
  say(
    "\n== A push's engine path: update-with-start against an eager start with the outcome handed over in the process (docs/behaviour/shipments.md) ==",
  );
  try {
    results.pushPatterns = await pushPatternsScenario({ temporalAddress: temporal.address });
  } finally {
    await temporal.stop();
  }
}

if (only?.includes('neighbours')) {
  // Only when named: about five minutes of processes, floods and big products. On the cluster with SHOPFLOW_TEMPORAL=cluster.
  say("\n== Noisy neighbours: shop B's deliveries alone, then beside a shop A doing everything at once ==");
  results.neighbours = await onTemporal((temporal) =>
    neighboursScenario({
      appUrl: database.appUrl,
      adminUrl: database.adminUrl,
      temporalAddress: temporal.address,
      seconds: Number(process.env.BENCH_NEIGHBOURS_SECONDS ?? PHASE_SECONDS),
    }),
  );
}

if (selected('flow-matching')) {
  say('\n== Matching an event to 50 flows: with 5-rule conditions against none ==');
  results.flowMatching = await flowMatchingScenario(sql);
}

if (selected('flow-health')) {
  // BENCH_HEALTH_ATTEMPTS (default 10,000,000): the attempts written over the last 7 days.
  say("\n== Flows' health at 10 million attempts: a busy flow's 7 days and the list's sparklines, against a count of its last hour ==");
  results.flowHealth = await flowHealthScenario(sql, ownerSql);
}

const outFile = join(dataDir, 'bench', `results-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
mkdirSync(join(dataDir, 'bench'), { recursive: true });
writeFileSync(outFile, JSON.stringify(results, null, 2));
say(`\nresults written to ${outFile}`);
await Promise.all([sql.end(), ownerSql.end()]);
await database.stop();
process.exit(0);
