import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { useSuite } from '../support/suite.js';
import { kitShop, type KitShop } from './kit-shop.js';
import { npm, packedClient } from './packed-client.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/**
 * `@shopflow/client` as published (issue 30): `npm pack` of its folder alone, installed into an empty
 * project with nothing but its own dependencies, a program and the README's examples compiled there
 * under `strict` without `skipLibCheck`, and run against the API.
 */

const run = promisify(execFile);
const { db, api, shop, request } = useSuite({ api: true, shop: true });
/** The project's own versions of the tools an integrator's project brings (TypeScript, Node's types, Fastify). */
const rootPackage = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as Record<
  'dependencies' | 'devDependencies',
  Record<string, string>
>;
const STRICT = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    types: ['node'],
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    skipLibCheck: false,
    outDir: 'out',
    // The three compilations below check again only what changed since the last (a README example, fastify's types).
    incremental: true,
  },
  include: ['*.ts'],
};
let tarball: string;
let project: string;
let ready: KitShop;

const installed = (file: string) => join(project, 'node_modules', '@shopflow', 'client', file);
const tsc = async () => {
  try {
    await run(process.execPath, [join(project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project]);
  } catch (error) {
    throw new Error(`tsc failed:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
  }
};
/** The README's TypeScript examples, those importing `fastify` or not. */
const readmeExamples = (withFastify: boolean) =>
  [...readFileSync(installed('README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((match) => match[1]!)
    .filter((code) => code.includes("from 'fastify'") === withFastify);

beforeAll(async () => {
  ready = await kitShop(db, shop, 1);
  tarball = await packedClient();
  project = temporaryDir('client-consumer');
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  const tools = ['typescript', '@types/node'].map((name) => `${name}@${rootPackage.devDependencies[name]}`);
  await npm(['install', tarball, ...tools], project);
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(STRICT));
}, 600_000);

describe('the packed @shopflow/client', () => {
  it('holds the built entry points, an MIT licence, its README and changelog, and needs no fastify', async () => {
    const { stdout } = await run('tar', ['-tzf', tarball]);
    const files = stdout.split('\n').filter(Boolean);
    for (const file of ['LICENSE', 'README.md', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts', 'dist/node.d.ts', 'dist/fastify.d.ts'])
      expect(files).toContain(`package/${file}`);
    expect(
      files.filter((file) => !/^package\/(?:dist\/.+\.(?:js|d\.ts)|LICENSE|README\.md|CHANGELOG\.md|package\.json)$/.test(file)),
    ).toEqual([]);
    const manifest = JSON.parse(readFileSync(installed('package.json'), 'utf8')) as Record<string, Record<string, unknown> | string>;
    expect(manifest).toMatchObject({ license: 'MIT', peerDependenciesMeta: { fastify: { optional: true } } });
    expect(manifest.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(Object.keys(manifest.dependencies!)).toEqual(['openapi-fetch', 'standardwebhooks']);
    expect(readFileSync(installed('CHANGELOG.md'), 'utf8')).toContain(`## ${String(manifest.version)} - `);
    expect(readFileSync(installed('LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(existsSync(join(project, 'node_modules', 'fastify'))).toBe(false);
  });

  // npm and tsc on a 2-core machine shared with other test files: minutes, not seconds.
  it(
    'compiles a program and the README’s examples under strict, without skipLibCheck, and the program runs against the API',
    { timeout: 300_000 },
    async () => {
      copyFileSync(fileURLToPath(new URL('client-consumer/consumer.ts', import.meta.url)), join(project, 'consumer.ts'));
      readmeExamples(false).forEach((code, index) => writeFileSync(join(project, `readme-${index}.ts`), code));
      await tsc();

      const codes: string[] = [];
      for (let index = 0; index < 3; index++) {
        const body = { warehouseId: ready.warehouseId, lines: [{ variantId: ready.variantIds[0]!, quantity: '1', unitPrice: '100000' }] };
        const created = await request('POST', '/orders', { key: ready.key, body });
        codes.push(((await created.json()) as { code: string }).code);
      }
      const { stdout } = await run(process.execPath, ['out/consumer.js'], {
        cwd: project,
        env: { ...process.env, SHOPFLOW_URL: api.baseUrl, SHOPFLOW_API_KEY: ready.key },
      });
      const printed = JSON.parse(stdout) as { shop: string; customer: string; codes: string[]; refusal: string; handler: string };
      const { name } = (await (await request('GET', '/shop', { key: ready.key })).json()) as { name: string };
      expect(printed).toEqual({
        shop: name,
        customer: 'Trần Thị Bình',
        codes: expect.any(Array),
        refusal: '404 not-found',
        handler: 'function',
      });
      expect(printed.codes.sort()).toEqual(codes.sort());
    },
  );

  it('compiles @shopflow/client/fastify once the project installs fastify, its optional peer', { timeout: 300_000 }, async () => {
    const [example] = readmeExamples(true);
    writeFileSync(join(project, 'fastify-receiver.ts'), example!);
    await expect(tsc()).rejects.toThrow(/Cannot find module 'fastify'/);
    await npm(['install', `fastify@${rootPackage.dependencies.fastify}`], project);
    await tsc();
  });
});
