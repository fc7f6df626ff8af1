import { loadavg } from 'node:os';
import { createSql, type Sql } from '../../db/client.js';
import { bootstrapTemporal } from '../../scripts/bootstrap/index.js';
import { say } from '../../scripts/bootstrap/progress.js';
import type { TemporalEngine } from '../../scripts/bootstrap/temporal-cluster.js';
import { cpuTotal, type CpuGroups } from '../cpu-usage.js';
import { deliveryScenario, type DeliveryResults } from './delivery.js';
import { temporalCeilingScenario, type CeilingResults } from './temporal-ceiling.js';

export interface EngineResults {
  engine: TemporalEngine;
  /** One-minute load average before the engine's ceiling and after its deliveries (2 cores here). */
  load: { before: number; after: number };
  ceiling: CeilingResults;
  delivery: DeliveryResults;
}

const ENGINES: TemporalEngine[] = ['dev', 'cluster'];
const ENGINE_NAMES: Record<TemporalEngine, string> = { dev: 'dev server (SQLite)', cluster: 'cluster (PostgreSQL)' };

/**
 * What a delivery costs on each Temporal server, in one run: the empty-workflow ceiling and
 * deliveries at `rates` (the last above both engines' capacity: saturation) on the dev server, then
 * the same on the cluster (`SHOPFLOW_TEMPORAL=cluster`'s server, started when not running), with
 * CPU per process group; then both side by side.
 */
export async function enginesScenario(options: {
  appUrl: string;
  seconds: number;
  secondsPerRate: number;
  concurrency: number;
  rates: number[];
}): Promise<EngineResults[]> {
  if (process.env.TEMPORAL_ADDRESS) throw new Error('the engines scenario starts both local Temporal servers: unset TEMPORAL_ADDRESS');
  const results: EngineResults[] = [];
  const sql = createSql(options.appUrl, { max: 1, applicationName: 'shopflow-bench-engines' });
  const counters = () => databaseCounters(sql);
  try {
    for (const engine of ENGINES) {
      say(`\n-- on the ${ENGINE_NAMES[engine]} --`);
      const temporal = await bootstrapTemporal(engine);
      try {
        const before = loadavg()[0]!;
        const ceiling = await temporalCeilingScenario({
          temporalAddress: temporal.address,
          seconds: options.seconds,
          concurrency: options.concurrency,
        });
        const delivery = await deliveryScenario({
          appUrl: options.appUrl,
          temporalAddress: temporal.address,
          rates: options.rates,
          secondsPerRate: options.secondsPerRate,
          baselineConcurrency: options.concurrency,
          counters,
        });
        results.push({ engine, load: { before, after: loadavg()[0]! }, ceiling, delivery });
      } finally {
        await temporal.stop();
      }
    }
  } finally {
    await sql.end();
  }
  printEngines(results);
  return results;
}

const DATABASES = { temporal: "Temporal's persistence", temporal_visibility: "Temporal's visibility" } as const;

/**
 * Transactions and row writes so far of Temporal's two databases (when made) and Shopflow's
 * (pg_stat_database). Transactions count reads too: each statement outside one is one.
 */
async function databaseCounters(sql: Sql): Promise<Record<string, number>> {
  const rows = await sql<{ datname: string; commits: string; writes: string; current: boolean }[]>`
    select datname, xact_commit as commits, tup_inserted + tup_updated + tup_deleted as writes, datname = current_database() as current
    from pg_stat_database where datname = any(${Object.keys(DATABASES)}) or datname = current_database()`;
  return Object.fromEntries(
    rows.flatMap(({ datname, commits, writes, current }) => {
      const name = current ? "Shopflow's" : DATABASES[datname as keyof typeof DATABASES];
      return [
        [`${name} transactions`, Number(commits)],
        [`${name} row writes`, Number(writes)],
      ];
    }),
  );
}

/** Process groups in the order of a deployment's parts (bench/cpu-usage.ts names them). */
const GROUPS: [group: string, label: string][] = [
  ['temporal', 'Temporal server'],
  ['postgres-temporal', "PostgreSQL, Temporal's databases"],
  ['postgres', "PostgreSQL, Shopflow's and shared"],
  ['relay', 'relay (with its eager worker)'],
  ['worker', 'stand-alone worker'],
  ['bench', 'bench (receiver; ceiling worker)'],
];

function printEngines(results: EngineResults[]): void {
  const column = (text: string) => text.padStart(24);
  const row = (label: string, cell: (result: EngineResults) => string) =>
    console.log(`${label.padEnd(52)}${results.map((result) => column(cell(result))).join('')}`);
  const saturated = (result: EngineResults) => result.delivery.delivery.at(-1)!;
  const ms = (groups: CpuGroups, group: string) => groups[group] ?? 0;

  console.log('\nDev server against cluster (CPU in ms per workflow or delivery; deliveries a second per core of each kind)');
  row('', (result) => ENGINE_NAMES[result.engine]);
  row('load average (1 min) before / after', (result) => `${result.load.before.toFixed(1)} / ${result.load.after.toFixed(1)}`);
  row(`empty workflows/s, ${results[0]?.ceiling.concurrency ?? 0} in flight`, (result) => result.ceiling.workflowsPerSecond.toFixed(0));
  row('  p50', (result) => `${result.ceiling.p50Ms.toFixed(0)} ms`);
  for (const [group, label] of GROUPS) row(`  CPU ${label}`, (result) => ms(result.ceiling.cpuMsPerWorkflow, group).toFixed(1));
  row('  CPU in all', (result) => cpuTotal(result.ceiling.cpuMsPerWorkflow).toFixed(1));
  row(`deliveries/s at saturation (${saturated(results[0]!).targetPerSecond}/s offered)`, (result) =>
    saturated(result).receiptsPerSecond.toFixed(0),
  );
  row('  ÷ the ceiling', (result) => (saturated(result).receiptsPerSecond / result.ceiling.workflowsPerSecond).toFixed(2));
  row('  p50 / p99 commit to receipt', (result) => `${saturated(result).p50Ms.toFixed(0)} / ${saturated(result).p99Ms.toFixed(0)} ms`);
  row('  missing / duplicates', (result) => `${saturated(result).missing} / ${saturated(result).duplicates}`);
  for (const [group, label] of GROUPS) {
    row(`  CPU ${label}`, (result) => {
      const cost = ms(saturated(result).cpuMsPerDelivery, group);
      return cost > 0 ? `${cost.toFixed(1)} (${(1000 / cost).toFixed(0)}/s)` : '—';
    });
  }
  row('  CPU in all', (result) => cpuTotal(saturated(result).cpuMsPerDelivery).toFixed(1));
  const counterNames = [...new Set(results.flatMap((result) => Object.keys(saturated(result).countersPerDelivery ?? {})))].sort();
  for (const name of counterNames) row(`  ${name}`, (result) => saturated(result).countersPerDelivery?.[name]?.toFixed(1) ?? '—');
}
