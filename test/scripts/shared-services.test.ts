import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { joinRun } from '../../scripts/bootstrap/shared-services.js';

// Real processes: two runs (`npm run dev`, `npm test`) and a service one of them started.
const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function processAlive(): ChildProcess {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.push(child);
  return child;
}
const isRunning = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

function setting() {
  const dir = mkdtempSync(join(tmpdir(), 'shopflow-runs-'));
  dirs.push(dir);
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
