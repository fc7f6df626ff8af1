import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The boundaries of docs/architecture.md: the top-level folders in layers, every import (type imports
 * too) running down and none back up; no import cycle between domain modules (the kernel imports
 * none); no module naming another module's tables in its SQL; and proof that every rule of
 * eslint.config.js, written by the role of a file, refuses a planted violation.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = [
  'api',
  'domain',
  'workflows',
  'activities',
  'adapters',
  'workers',
  'db',
  'simulators',
  'scripts',
  'bench',
  'config',
  'telemetry',
  'test',
];
/**
 * The folders that run, top to bottom (docs/architecture.md, "Layers"): each imports only folders below
 * it. Tooling (test, bench, simulators) may use anything and is used by nothing.
 */
const LAYERS = ['scripts', 'api', 'workers', 'workflows', 'activities', 'adapters', 'domain', 'db', 'config', 'telemetry'];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => posix.join(posix.relative(root, entry.parentPath.split('\\').join('/')), entry.name));
}

const files = FOLDERS.flatMap(sourceFiles);
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Relative imports and re-exports, `import type` too: a type names what it depends on as much as code does. */
const IMPORT = /^\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

function importsOf(file: string): { target: string }[] {
  return [...read(file).matchAll(IMPORT)].map((match) => ({ target: posix.normalize(posix.join(posix.dirname(file), match[1]!)) }));
}

type Graph = Map<string, Set<string>>;

function graphOf(nodeOf: (file: string) => string | undefined): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const from = nodeOf(file);
    if (!from) continue;
    for (const { target } of importsOf(file)) {
      const to = nodeOf(target);
      if (!to || to === from) continue;
      graph.set(from, (graph.get(from) ?? new Set()).add(to));
    }
  }
  return graph;
}

/** One cycle of the graph as a path (`a → b → a`), or null. */
function findCycle(graph: Graph): string | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node].join(' → ');
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

const topFolder = (file: string) => (FOLDERS.includes(file.split('/')[0]!) ? file.split('/')[0] : undefined);
const domainModule = (file: string) => /^domain\/([^/]+)\//.exec(file)?.[1];

/** Each import that runs from a layer up to one above it (or sideways to tooling), as `from → to`. */
function upwardImports(graph: Graph): string[] {
  return [...graph].flatMap(([from, targets]) =>
    LAYERS.includes(from) ? [...targets].filter((to) => !(LAYERS.indexOf(to) > LAYERS.indexOf(from))).map((to) => `${from} → ${to}`) : [],
  );
}

describe('import graph', () => {
  it('runs down the layers of top-level folders: no import back up, so no cycle', () => {
    const graph = graphOf(topFolder);
    expect(graph.get('api')).toContain('domain');
    expect(graph.get('workflows')).toContain('activities');
    expect(upwardImports(graph)).toEqual([]);
    expect(findCycle(graph)).toBeNull();
  });

  it('has no cycle between files outside generated code', () => {
    const graph = graphOf((file) => (file.endsWith('.generated.ts') ? undefined : file.replace(/\.js$/, '.ts')));
    expect(graph.get('api/app.ts')).toContain('api/plugins/problems.ts');
    expect(findCycle(graph)).toBeNull();
  });

  it('finds an import back up when there is one (the check itself)', () => {
    const planted: Graph = new Map([
      ['workflows', new Set(['activities'])],
      ['activities', new Set(['workflows', 'domain', 'test'])],
    ]);
    expect(upwardImports(planted)).toEqual(['activities → workflows', 'activities → test']);
  });

  it('has no cycle between domain modules, and the kernel imports no module', () => {
    const graph = graphOf(domainModule);
    expect(graph.get('orders')).toContain('catalog');
    expect(findCycle(graph)).toBeNull();
    expect([...(graph.get('kernel') ?? [])]).toEqual([]);
  });

  it('finds a cycle when there is one (the check itself)', () => {
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
          ['c', new Set(['a'])],
        ]),
      ),
    ).toBe('a → b → c → a');
    expect(
      findCycle(
        new Map([
          ['a', new Set(['b'])],
          ['b', new Set(['c'])],
        ]),
      ),
    ).toBeNull();
  });
});

/** docs/architecture.md, "Table ownership": module → its tables and the SQL functions only it calls (`name()`). */
function ownership(): Map<string, string> {
  const doc = read('docs/architecture.md');
  const section = doc.slice(doc.indexOf('## Table ownership'), doc.indexOf('\n## ', doc.indexOf('## Table ownership') + 1));
  const owner = new Map<string, string>();
  for (const [, module, names] of section.matchAll(/^\| `([a-z-]+)` \| (.+) \|$/gm)) {
    for (const [, name] of names!.matchAll(/`([a-z_]+(?:\(\))?)`/g)) owner.set(name!, module!);
  }
  return owner;
}

/** The tables the migrations leave in place (their `up` parts, in order). */
function migratedTables(): Set<string> {
  const folder = 'db/migrations';
  const tables = new Set<string>();
  for (const name of readdirSync(join(root, folder))
    .filter((file) => file.endsWith('.sql'))
    .sort()) {
    const up = read(`${folder}/${name}`).split('-- migrate:down')[0]!;
    for (const statement of up.matchAll(/\b(CREATE(?: UNLOGGED)? TABLE|DROP TABLE)\s+([a-z_][a-z0-9_, ]*)/g)) {
      const names = statement[2]!.split(',').map((table) => table.trim().split(/\s/)[0]!);
      for (const table of names) {
        if (statement[1]!.startsWith('DROP')) tables.delete(table);
        else tables.add(table);
      }
    }
  }
  return tables;
}

/** Every table a domain module's SQL names (`from`, `join`, `into`, `update`, `table`), and every call of a private SQL function. */
function sqlReferences(file: string, privateFunctions: readonly string[]): { name: string; line: number }[] {
  const code = read(file)
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, ' '))
    .replace(/(^|\s)\/\/.*$/gm, '$1');
  const lines = code.split('\n');
  return lines.flatMap((text, index) => [
    ...[...text.matchAll(/\b(?:from|join|into|update|table)\s+([a-z_][a-z0-9_]*)\b/gi)].map((match) => ({
      name: match[1]!.toLowerCase(),
      line: index + 1,
    })),
    ...privateFunctions
      .filter((name) => new RegExp(`\\b${name}\\s*\\(`).test(text))
      .map((name) => ({ name: `${name}()`, line: index + 1 })),
  ]);
}

describe('table ownership', () => {
  const owner = ownership();

  it('gives every table of the migrations an owning module', () => {
    const tables = [...migratedTables()];
    expect(tables).toContain('orders');
    expect(tables.filter((table) => !owner.has(table))).toEqual([]);
    expect([...owner.keys()].filter((name) => !name.endsWith('()') && !tables.includes(name))).toEqual([]);
  });

  it("has no module name another module's tables or private SQL functions", () => {
    const privateFunctions = [...owner.keys()].filter((name) => name.endsWith('()')).map((name) => name.slice(0, -2));
    const foreign = files
      .filter((file) => file.startsWith('domain/'))
      .flatMap((file) =>
        sqlReferences(file, privateFunctions)
          .filter(({ name }) => owner.has(name) && owner.get(name) !== domainModule(file))
          .map(({ name, line }) => `${file}:${line} names ${name} of ${owner.get(name)}`),
      );
    expect(foreign).toEqual([]);
  });
});

describe('the boundary lint rules by file role (eslint.config.js)', () => {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: join(root, 'eslint.config.js') });
  /** The boundary messages ESLint gives a probe file of `code` at `file` (never written to disk). */
  const restricted = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(root, file) });
    return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
  };
  /** A probe importing `names` from `from` (`type` imports when `typeOnly`), using them so no other rule objects. */
  const probe = (from: string, names: string, typeOnly = false) =>
    typeOnly
      ? `import type { ${names} } from '${from}';\n\nexport type Probe = ${names.split(', ').join(' | ')};\n`
      : `import { ${names} } from '${from}';\n\nexport const probe = [${names}];\n`;

  /** Each rule with one planted violation: [role, probe file, code, what the message says]. */
  const violations: [string, string, string, string][] = [
    [
      'any file outside domain/',
      'api/routes/boundary-probe.ts',
      probe('../../domain/orders/order-input.js', 'resolveLines'),
      'only through its index.js',
    ],
    ['a domain module', 'domain/flows/boundary-probe.ts', probe('../orders/order-detail.js', 'getOrder'), 'only through its index.js'],
    ['a domain module', 'domain/orders/boundary-probe.ts', probe('fastify', 'fastify'), 'nothing of Fastify or Temporal'],
    [
      'a domain module',
      'domain/orders/boundary-probe.ts',
      probe('../../adapters/carriers/carrier-a.js', 'carrierA'),
      'imports no API, worker, activity, adapter',
    ],
    ['db/', 'db/boundary-probe.ts', probe('../domain/kernel/index.js', 'withShop'), 'imports nothing of domain/'],
    ['workflow code', 'workflows/shipments/boundary-probe.ts', probe('zod', 'z'), "Temporal's deterministic sandbox"],
    [
      'workflow code',
      'workflows/shipments/boundary-probe.ts',
      probe('../../domain/kernel/index.js', 'seal'),
      'only the types of domain/ and activities/',
    ],
    [
      'workflow code',
      'workflows/deliveries/boundary-probe.ts',
      probe('../../activities/deliveries/delivery-activities.js', 'createDeliveryActivities'),
      'only the types of domain/ and activities/',
    ],
    ['workflow code', 'workflows/boundary-probe.ts', probe('../config/settings.js', 'loadSettings'), 'imports only workflow code'],
    ['workflow code', 'workflows/shipments/boundary-probe.ts', probe('./shipment-starter.js', 'pushShipment'), 'never imports a starter'],
    [
      'a starter',
      'workflows/shipments/boundary-probe-starter.ts',
      probe('../../adapters/carriers/carrier-a.js', 'carrierA'),
      'client side of its feature',
    ],
    [
      'a starter',
      'workflows/shipments/boundary-probe-starter.ts',
      probe('../../activities/shipments/shipment-activities.js', 'createCarrierActivities'),
      "activities' input types, never their code",
    ],
    ['a starter', 'workflows/deliveries/boundary-probe-relay.ts', probe('@temporalio/worker', 'Worker'), 'runs no worker'],
    [
      'an activity',
      'activities/shipments/boundary-probe.ts',
      probe('../../workflows/shipments/shipment-workflows.js', 'ShipmentPushResult', true),
      'Activities sit below the workflows',
    ],
    [
      'an activity',
      'activities/shipments/boundary-probe.ts',
      probe('../../workflows/shipments/shipment-starter.js', 'signalMilestone'),
      'Activities sit below the workflows',
    ],
    ['an activity', 'activities/housekeeping/boundary-probe.ts', probe('@temporalio/client', 'Client'), 'starts no workflow itself'],
    [
      'an adapter',
      'adapters/carriers/boundary-probe.ts',
      probe('../../activities/shipments/shipment-activities.js', 'ShipmentKeys', true),
      'An adapter speaks to one outside service',
    ],
    ['an adapter', 'adapters/chat-platform/boundary-probe.ts', probe('@temporalio/activity', 'Context'), 'know nothing of Temporal'],
    [
      'the API',
      'api/routes/shipments/boundary-probe.ts',
      probe('../../../activities/shipments/shipment-activities.js', 'createCarrierActivities'),
      'never activities, workers or scripts',
    ],
    [
      'the API',
      'api/routes/shipments/boundary-probe.ts',
      probe('../../../workflows/shipments/shipment-workflows.js', 'shipmentTrackingWorkflow'),
      "through its feature's starter",
    ],
    ['the API', 'api/boundary-probe.ts', probe('@temporalio/worker', 'Worker'), 'is a Temporal client'],
    ['a worker entry point', 'workers/boundary-probe.ts', probe('../api/app.js', 'buildApp'), 'imports no API or script'],
  ];

  it.each(violations)('refuses, for %s (%s), a planted violation', async (_role, file, code, message) => {
    const messages = await restricted(file, code);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain(message);
  });

  /** What each role may import: none of these may be refused, or the rules above forbid too much. */
  const allowed: [string, string][] = [
    [
      'domain/flows/boundary-probe.ts',
      probe('../orders/index.js', 'getOrder') + probe('./flows.js', 'getFlow').replace('probe', 'sibling'),
    ],
    ['workflows/shipments/boundary-probe.ts', probe('../../activities/shipments/shipment-activities.js', 'CarrierActivities', true)],
    ['workflows/shipments/boundary-probe.ts', probe('../../domain/shipments/index.js', 'CarrierOrder', true)],
    [
      'workflows/shipments/boundary-probe.ts',
      probe('../search-attributes.js', 'ShopIdKey') + probe('@temporalio/workflow', 'sleep').replace('probe', 'sdk'),
    ],
    [
      'workflows/shipments/boundary-probe-starter.ts',
      probe('./shipment-workflows.js', 'shipmentTrackingWorkflow') +
        probe('../../domain/kernel/index.js', 'seal').replace('probe', 'kernel'),
    ],
    ['activities/shipments/boundary-probe.ts', probe('../../adapters/carriers/carrier-adapters.js', 'carrierAdapter')],
    ['api/routes/shipments/boundary-probe.ts', probe('../../../workflows/shipments/shipment-starter.js', 'pushShipment')],
    ['api/boundary-probe.ts', probe('../adapters/chat-platform/platform-adapter.js', 'createChatPlatformAdapter')],
    ['workers/boundary-probe.ts', probe('../activities/deliveries/delivery-activities.js', 'createDeliveryActivities')],
  ];

  it.each(allowed)('accepts, in %s, what the role may import', async (file, code) => {
    expect(await restricted(file, code)).toEqual([]);
  });
});
