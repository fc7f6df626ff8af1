import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { cpSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../scripts/bootstrap/paths.js';
import { markedProcesses as marked } from '../support/marked-processes.js';
import { temporaryDir } from '../support/temporary-dirs.js';

// `npm test` itself, run from a copy of this clone so that its lint, type-check and web build work on
// the copy's files, against a PostgreSQL and a Temporal that take connections and never answer: the
// bootstrap fails once it has waited 10 s for Temporal, while those commands run.
// Every process it starts carries a mark in its environment: none may be left once it has ended.
let copy: string;
let silent: Server;
const sockets = new Set<Socket>();

beforeAll(async () => {
  copy = temporaryDir('shopflow-launcher');
  const skipped = new Set(['node_modules', '.data', '.git', join('web', 'dist')]);
  cpSync(projectRoot, copy, { recursive: true, filter: (source) => !skipped.has(relative(projectRoot, source)) });
  symlinkSync(join(projectRoot, 'node_modules'), join(copy, 'node_modules'));
  // A lint without caches, as on a machine's first run (scripts/bootstrap/lint-caches.ts seeds none
  // where a clone has its own): it runs for tens of seconds, through the bootstrap's failure.
  mkdirSync(join(copy, '.data', 'lint'), { recursive: true });
  writeFileSync(join(copy, '.data', 'lint', 'root'), copy);
  // Takes connections and never answers: PostgreSQL that does not come up.
  silent = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent.close(resolve));
});

/**
 * Runs `npm test` in its own process group, as a terminal runs a command, waits for its lint and
 * type-check (the web build may be a copy of the machine's, no process), then `act`s on the group;
 * resolves once it has exited.
 */
async function launch(act?: (group: number) => void) {
  const mark = `SHOPFLOW_LAUNCHER_MARK=${randomUUID()}`;
  const silentAddress = `127.0.0.1:${(silent.address() as { port: number }).port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: `postgres://postgres@${silentAddress}/postgres`,
    TEMPORAL_ADDRESS: silentAddress,
    [mark.split('=')[0]!]: mark.split('=')[1],
  };
  delete env.SKIP_LINT;
  const launcher = spawn('npm', ['test'], { cwd: copy, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  launcher.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  launcher.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => launcher.once('exit', (code, signal) => resolve(code ?? signal!)));
  const seen = new Map<number, string>();
  let acted = false;
  let code: number | string | undefined;
  void exited.then((exitCode) => (code = exitCode));
  while (code === undefined) {
    for (const [pid, command] of marked(mark)) seen.set(pid, command);
    const commands = [...seen.values()];
    if (!acted && ['eslint', 'tsc'].every((tool) => commands.some((command) => command.includes(`.bin/${tool}`)))) {
      acted = true;
      act?.(launcher.pid!);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { code, output, seen: [...seen.values()], left: [...marked(mark).values()] };
}

describe('npm test ends every process it started', () => {
  it('when the bootstrap fails while the lint and type-check run', async () => {
    const run = await launch();
    expect(run.output).toContain('DATABASE_URL is set but PostgreSQL does not answer there');
    expect(run.code).toBe(1);
    expect(run.seen.some((command) => command.includes('.bin/eslint'))).toBe(true);
    // The failure came while the lint and type-check ran: they were stopped, not waited for.
    expect(run.output).not.toContain('✓ lint and type-check');
    expect(run.left).toEqual([]);
  });

  it('on Ctrl-C during the bootstrap (SIGINT to its process group: the commands are in groups of their own)', async () => {
    const run = await launch((group) => process.kill(-group, 'SIGINT'));
    expect(run.output).toContain('› SIGINT: stopping');
    expect(run.output).not.toContain('✗');
    // npm itself ends by the signal; the launcher under it exits 130.
    expect([130, 'SIGINT']).toContain(run.code);
    expect(run.seen.some((command) => command.includes('.bin/tsc'))).toBe(true);
    expect(run.left).toEqual([]);
  });
});
