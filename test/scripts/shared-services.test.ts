import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectRoot, typescriptImports } from '../../scripts/bootstrap/paths.js';
import { outputMatches } from '../../scripts/processes.js';
import { joinRun } from '../../scripts/bootstrap/shared-services.js';
import { temporaryDir } from '../support/temporary-dirs.js';

// Real processes: two runs (`npm run dev`, `npm test`) and a service one of them started.
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function processAlive(): ChildProcess {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child;
}
const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

function setting() {
  const dir = temporaryDir('shopflow-runs');
  const service = processAlive();
  const stopped = new Promise<void>((resolve) => service.once('exit', () => resolve()));
  const stops = {
    postgres: async () => {
      service.kill('SIGTERM');
      await stopped;
    },
  };
  const dev = joinRun(dir, processAlive().pid!);
  const test = joinRun(dir, processAlive().pid!);
  return { dir, service, stops, dev, test };
}

describe('services shared by overlapping runs', () => {
  it('keeps the service while the run that did not start it still runs, when the starter ends first', async () => {
    const { service, stops, dev, test } = setting();
    dev.markStarted('postgres');
    expect(await dev.leave(stops)).toEqual([]);
    expect(isRunning(service)).toBe(true);
    expect(await test.leave(stops)).toEqual(['postgres']);
    expect(isRunning(service)).toBe(false);
  });

  it('lets the starter stop it when the other run ended first', async () => {
    const { service, stops, dev, test } = setting();
    test.markStarted('postgres');
    expect(await dev.leave(stops)).toEqual([]);
    expect(isRunning(service)).toBe(true);
    expect(await test.leave(stops)).toEqual(['postgres']);
    expect(isRunning(service)).toBe(false);
  });

  it("stops a service when its process's only other lease is for another service (the bench: the database, then Temporal)", async () => {
    const { dir, service, stops, dev, test } = setting();
    await Promise.all([dev.leave({}), test.leave({})]);
    const bench = processAlive().pid!;
    const database = joinRun(dir, bench);
    const temporal = joinRun(dir, bench);
    temporal.markStarted('postgres');
    expect(await temporal.leave(stops)).toEqual(['postgres']);
    expect(isRunning(service)).toBe(false);
    expect(await database.leave({})).toEqual([]);
  });

  it('does not count a killed run, and never stops a service no run started', async () => {
    const { dir, service, stops, dev, test } = setting();
    const killed = processAlive();
    joinRun(dir, killed.pid!).markStarted('postgres');
    killed.kill('SIGKILL');
    await new Promise((resolve) => killed.once('exit', resolve));
    expect(await dev.leave({})).toEqual([]);
    expect(await test.leave(stops)).toEqual(['postgres']);
    expect(isRunning(service)).toBe(false);
    expect(existsSync(join(dir, 'started-postgres'))).toBe(false);

    const untouched = setting();
    expect(await untouched.dev.leave(untouched.stops)).toEqual([]);
    expect(await untouched.test.leave(untouched.stops)).toEqual([]);
    expect(isRunning(untouched.service)).toBe(true);
  });
});

describe('ports of overlapping runs', () => {
  /** A run choosing its servers' ports as `npm run dev` does, before any listens; it holds them until it ends. */
  function choosing(preferred: Record<string, number>) {
    const script = `
      const { freePorts } = await import(${JSON.stringify(join(projectRoot, 'scripts', 'bootstrap', 'ports.ts'))});
      console.log('ports ' + JSON.stringify(await freePorts(${JSON.stringify(preferred)})));
      setInterval(() => undefined, 1000);`;
    const child = spawn(process.execPath, [...typescriptImports, '--input-type=module', '-e', script], {
      cwd: projectRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const chosen = outputMatches(child, /ports \{.*\}\n/, 30_000, 'a run choosing ports').then(
      () => JSON.parse(/ports (\{.*\})/.exec(output)![1]!) as Record<string, number>,
    );
    return { child, chosen };
  }

  it('never gives two runs choosing at once the same port, nor one run the same port twice (carrier A, carrier B)', async () => {
    // Carrier B prefers the port after carrier A's, as 3601 and 3602 do: when A moves up, B must not land on it.
    const preferred = { api: 45_300, 'carrier A': 45_311, 'carrier B': 45_312, chat: 45_320 };
    const [first, second] = [choosing(preferred), choosing(preferred)];
    const [firstPorts, secondPorts] = await Promise.all([first.chosen, second.chosen]);
    expect(new Set([...Object.values(firstPorts), ...Object.values(secondPorts)]).size).toBe(8);

    // A run's ports are free again once it has ended, even killed: a third run takes them.
    const ended = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await ended;
    const third = await choosing(preferred).chosen;
    expect(third.api).toBe(firstPorts.api);
    expect(new Set([...Object.values(third), ...Object.values(secondPorts)]).size).toBe(8);
  });
});
