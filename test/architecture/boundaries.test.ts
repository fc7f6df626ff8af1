import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The module boundaries of docs/architecture.md: no import cycle between top-level folders or between
 * domain modules (the kernel imports none; type imports count too), no module naming another
 * module's tables in its SQL, and proof that the lint rule of eslint.config.js refuses an import of
 * another module's inner file.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const FOLDERS = ['api', 'domain', 'workflows', 'activities', 'workers', 'db', 'simulators', 'scripts', 'bench', 'config', 'test'];

function sourceFiles(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => posix.join(posix.relative(root, entry.parentPath.split('\\').join('/')), entry.name));
}

const files = FOLDERS.flatMap(sourceFiles);
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Relative imports and re-exports, each with whether it is `import type`/`export type` (erased when compiled). */
const IMPORT = /^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  return [...read(file).matchAll(IMPORT)].map((match) => ({
    target: posix.normalize(posix.join(posix.dirname(file), match[2]!)),
    typeOnly: Boolean(match[1]),
  }));
}

/**
 * The one edge left out: a workflow names its activities' types (`proxyActivities<…>`, the SDK's way;
 * erased, so the bundle holds no activity code), while the activities import the workflow's failure type.
 */
const isWorkflowNamingActivityTypes = (from: string, to: string, typeOnly: boolean) =>
  typeOnly && from === 'workflows' && to === 'activities';

type Graph = Map<string, Set<string>>;

function graphOf(nodeOf: (file: string) => string | undefined): Graph {
  const graph: Graph = new Map();
  for (const file of files) {
    const from = nodeOf(file);
    if (!from) continue;
    for (const { target, typeOnly } of importsOf(file)) {
      const to = nodeOf(target);
      if (!to || to === from || isWorkflowNamingActivityTypes(from, to, typeOnly)) continue;
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

describe('import graph', () => {
  it('has no cycle between top-level folders', () => {
    const graph = graphOf(topFolder);
    expect(graph.get('api')).toContain('domain');
    expect(findCycle(graph)).toBeNull();
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

describe('the boundary lint rule (eslint.config.js)', () => {
  const eslint = new ESLint({ cwd: root, overrideConfigFile: join(root, 'eslint.config.js') });
  const restricted = async (file: string, code: string) => {
    const [result] = await eslint.lintText(code, { filePath: join(root, file) });
    return result!.messages.filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
  };

  it('refuses an import of an inner file of a module from outside it', async () => {
    const messages = await restricted(
      'api/routes/boundary-probe.ts',
      "import { resolveLines } from '../../domain/orders/order-input.js';\n\nexport const probe = resolveLines;\n",
    );
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('only through its index.js');
  });

  it("refuses a module importing another module's inner file, and accepts its index and siblings", async () => {
    expect(
      await restricted(
        'domain/flows/boundary-probe.ts',
        "import { getOrder } from '../orders/order-detail.js';\n\nexport const probe = getOrder;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restricted(
        'domain/flows/boundary-probe.ts',
        "import { getOrder } from '../orders/index.js';\nimport { getFlow } from './flows.js';\n\nexport const probe = [getOrder, getFlow];\n",
      ),
    ).toEqual([]);
  });

  it('keeps Fastify, Temporal and the runtime folders out of domain/, and domain/ out of db/ and workflows/', async () => {
    expect(
      await restricted(
        'domain/orders/boundary-probe.ts',
        "import Fastify from 'fastify';\nimport { Client } from '@temporalio/client';\nimport { buildApp } from '../../api/app.js';\n\nexport const probe = [Fastify, Client, buildApp];\n",
      ),
    ).toHaveLength(3);
    expect(
      await restricted('db/boundary-probe.ts', "import { withShop } from '../domain/kernel/index.js';\n\nexport const probe = withShop;\n"),
    ).toHaveLength(1);
    expect(
      await restricted(
        'workflows/boundary-probe.ts',
        "import { getFlow } from '../domain/flows/index.js';\n\nexport const probe = getFlow;\n",
      ),
    ).toHaveLength(1);
  });

  it('lets a workflow import the types of activities, not their code', async () => {
    const typeOnly = "import type { FlowActivities } from '../activities/flows/flow-steps.js';\n\nexport type Probe = FlowActivities;\n";
    expect(await restricted('workflows/boundary-probe.ts', typeOnly)).toEqual([]);
    expect(
      await restricted(
        'workflows/boundary-probe.ts',
        "import { createFlowActivities } from '../activities/flows/flow-steps.js';\n\nexport const probe = createFlowActivities;\n",
      ),
    ).toHaveLength(1);
  });
});
