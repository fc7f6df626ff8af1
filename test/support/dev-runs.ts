import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { projectRoot } from '../../scripts/bootstrap/paths.js';
import { outputMatches } from '../../scripts/processes.js';
import { markedProcesses } from './marked-processes.js';

/** A line of `npm run dev`'s summary: everything is up. */
const READY = /Ctrl-C stops everything this command started/;

export interface DevRun {
  child: ChildProcess;
  mark: string;
  output: () => string;
  exited: Promise<number | string>;
}
const runs: DevRun[] = [];

/** `npm run dev` in its own process group, as a terminal runs it, with a mark every process under it inherits. */
export function startDev(env: Record<string, string>): DevRun {
  const mark = `SHOPFLOW_DEV_RUN_MARK=${randomUUID()}`;
  const [name, value] = mark.split('=') as [string, string];
  const child = spawn('npm', ['run', 'dev'], {
    cwd: projectRoot,
    env: { ...process.env, ...env, [name]: value },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal!)));
  const run = { child, mark, output: () => output, exited };
  runs.push(run);
  return run;
}

/** Waits for the run's summary; its output so far. */
export async function devReady(run: DevRun): Promise<string> {
  await outputMatches(run.child, READY, 240_000, 'npm run dev').catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${run.output().slice(-3_000)}`);
  });
  return run.output();
}

/**
 * Ctrl-C: SIGINT to the run's process group. Resolves once every process under it has ended (npm
 * itself ends by the signal; the launcher under it stops its children first), with what is left.
 */
export async function interrupt(run: DevRun): Promise<string[]> {
  process.kill(-run.child.pid!, 'SIGINT');
  await run.exited;
  const deadline = Date.now() + 30_000;
  while (markedProcesses(run.mark).size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  return [...markedProcesses(run.mark).values()];
}

/** For `afterAll`: a run a failed test left gets Ctrl-C, then whatever is still there is killed. */
export async function endDevRuns(): Promise<void> {
  for (const run of runs) {
    if (run.child.exitCode === null && run.child.signalCode === null) await interrupt(run);
    for (const pid of markedProcesses(run.mark).keys()) process.kill(pid, 'SIGKILL');
  }
}
