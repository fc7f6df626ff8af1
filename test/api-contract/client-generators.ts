import { execFile } from 'node:child_process';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { OAPI_CODEGEN_RUNTIME_VERSION, oapiCodegenBin } from '../../scripts/bootstrap/oapi-codegen.js';
import { openApiPythonClientBin, venvBinDir, venvPython } from '../../scripts/bootstrap/python-tools.js';

/**
 * Clients of the public document made as an integrator makes them, with mainstream generators the
 * project did not write (installed by the suite's launcher: scripts/bootstrap/python-tools.ts and
 * oapi-codegen.ts), each driven by a program of its language (generated-clients/) written against the
 * generated names, which come from the operations' `operationId` and tags: the programs break, as an
 * integrator's code would, when those change.
 */

const run = promisify(execFile);
const programs = fileURLToPath(new URL('generated-clients/', import.meta.url));

/** What a program prints: the shop's name and each page's order codes. */
export interface ProgramResult {
  shop: string;
  pages: string[][];
}

/** Where a program calls the API (the document's server URL, on the test API), with which key and page size. */
export interface Target {
  baseUrl: string;
  key: string;
  limit: number;
}

/** A command's standard output; its output and errors in the message when it fails. */
async function output(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<string> {
  try {
    return (await run(command, args, { ...options, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 })).stdout;
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${[stdout, stderr].filter(Boolean).join('\n')}`);
  }
}

/** A program's run against `target`, its printed JSON parsed. */
async function runProgram(command: string, args: string[], dir: string, target: Target): Promise<ProgramResult> {
  const env = {
    ...process.env,
    SHOPFLOW_BASE_URL: target.baseUrl,
    SHOPFLOW_API_KEY: target.key,
    SHOPFLOW_PAGE_LIMIT: String(target.limit),
  };
  return JSON.parse(await output(command, args, { cwd: dir, env })) as ProgramResult;
}

/** The Python client of `documentFile`, generated into `dir` as the package `shopflow_client`. */
export async function generatePythonClient(dir: string, documentFile: string): Promise<void> {
  // A warning means part of the document was left out of the client: refused like an error.
  const args = ['generate', '--path', documentFile, '--meta', 'none', '--output-path', join(dir, 'shopflow_client'), '--fail-on-warning'];
  // Its post-generation hooks format the output with the venv's ruff.
  await output(openApiPythonClientBin, args, { cwd: dir, env: { ...process.env, PATH: `${venvBinDir}:${process.env.PATH ?? ''}` } });
}

/** sync.py beside the client `generatePythonClient` wrote into `dir`, run with the venv's interpreter. */
export async function runPythonProgram(dir: string, target: Target): Promise<ProgramResult> {
  copyFileSync(join(programs, 'sync.py'), join(dir, 'sync.py'));
  return runProgram(venvPython, ['sync.py'], dir, target);
}

/**
 * The Go client (types and client) of `documentFile`, generated into `dir` in package main, with
 * oapi-codegen's default options: its pruning keeps only what `paths` reach, so the document writes
 * what only the webhooks use where they use it (api/document/public-document.ts).
 */
export async function generateGoClient(dir: string, documentFile: string): Promise<void> {
  const args = ['-generate', 'types,client', '-package', 'main', '-o', 'shopflow.gen.go', documentFile];
  await output(oapiCodegenBin, args, { cwd: dir });
}

/**
 * main.go beside the client `generateGoClient` wrote into `dir`, built as one module whose dependencies
 * the Go module proxy resolves (`-mod=mod`; the machine's module and build caches keep them for the
 * next run), then run.
 */
export async function runGoProgram(dir: string, target: Target): Promise<ProgramResult> {
  copyFileSync(join(programs, 'main.go'), join(dir, 'main.go'));
  writeFileSync(
    join(dir, 'go.mod'),
    `module example.com/shopflowsync\n\ngo 1.25\n\nrequire github.com/oapi-codegen/runtime ${OAPI_CODEGEN_RUNTIME_VERSION}\n`,
  );
  await output('go', ['build', '-o', 'shopflow-sync', '.'], { cwd: dir, env: { ...process.env, GOFLAGS: '-mod=mod' } });
  return runProgram(join(dir, 'shopflow-sync'), [], dir, target);
}
