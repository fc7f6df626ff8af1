import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { projectRoot, typescriptImports } from './bootstrap/paths.js';

/** Each process's metrics listener (config/settings.ts) on any free port. */
const ANY_FREE_METRICS_PORTS = { API_METRICS_PORT: '0', WORKER_METRICS_PORT: '0', RELAY_METRICS_PORT: '0' };

interface Managed {
  name: string;
  child: ChildProcess;
  /** Set by `kill`: this exit is intended and not reported to `onUnexpectedExit`. */
  killed?: boolean;
}

/**
 * The child processes of a launcher. Each runs in its own process group so that stopping it also
 * stops whatever it spawned; output is prefixed.
 */
export class ProcessGroup {
  private readonly managed: Managed[] = [];
  private stopping = false;

  private readonly onUnexpectedExit: (name: string, code: number | null) => void;
  private readonly output: (line: string) => void;

  /** `output` takes every line of the children's output (prefixed); stdout by default. */
  constructor(
    onUnexpectedExit: (name: string, code: number | null) => void,
    output: (line: string) => void = (line) => process.stdout.write(line),
  ) {
    this.onUnexpectedExit = onUnexpectedExit;
    this.output = output;
    liveGroups.add(this);
  }

  /**
   * Runs a TypeScript entry point of this project on this Node (scripts/typescript-imports.mjs). Its
   * `/metrics` listener takes any free port unless `env` names one (tests and the bench start many
   * processes side by side; `npm run dev` names each).
   */
  startTs(name: string, entry: string, env: Record<string, string>): ChildProcess {
    return this.startCommand(name, process.execPath, [...typescriptImports, join(projectRoot, entry)], projectRoot, env);
  }

  /** Runs a TypeScript entry point's JavaScript from `npm run build`'s output in `root`, as the image does. */
  startBuilt(name: string, root: string, entry: string, env: Record<string, string>): ChildProcess {
    return this.startCommand(name, process.execPath, [join(root, entry.replace(/\.ts$/, '.js'))], root, env);
  }

  private startCommand(name: string, command: string, args: string[], cwd: string, env: Record<string, string>): ChildProcess {
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...ANY_FREE_METRICS_PORTS, ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const colour = 31 + (this.managed.length % 6);
    const prefix = `\x1b[${colour}m${name.padEnd(10)}\x1b[0m│ `;
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream! }).on('line', (line) => this.output(`${prefix}${line}\n`));
    }
    return this.adopt(name, child);
  }

  /** Takes in a process spawned elsewhere, `detached` (its own group), to be stopped with the others. */
  adopt(name: string, child: ChildProcess): ChildProcess {
    const managed: Managed = { name, child };
    child.once('exit', (code) => {
      if (!this.stopping && !managed.killed) this.onUnexpectedExit(name, code);
    });
    this.managed.push(managed);
    return child;
  }

  /**
   * Sends `signal` to the whole process group of every running process named `name` (SIGKILL: a
   * crash, nothing is cleaned up) and resolves once each has exited. Not reported as unexpected.
   */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const targets = this.managed.filter(
      (managed) => managed.name === name && managed.child.exitCode === null && managed.child.signalCode === null,
    );
    await Promise.all(
      targets.map(
        (managed) =>
          new Promise<void>((resolve) => {
            managed.killed = true;
            managed.child.once('exit', () => resolve());
            killGroup(managed.child, signal);
          }),
      ),
    );
  }

  /** `signal` to every group at once; SIGKILL when the launcher is exiting. */
  killAll(signal: NodeJS.Signals = 'SIGKILL'): void {
    for (const { child } of this.managed) killGroup(child, signal);
  }

  /** SIGTERM to every group, then SIGKILL to whatever is still there after `graceMs`. */
  async stopAll(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    const running = this.managed.filter(({ child }) => child.exitCode === null && child.signalCode === null);
    await Promise.all(
      running.map(
        ({ child }) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
            child.once('exit', () => {
              clearTimeout(timer);
              // The group may hold grandchildren that outlived the leader.
              killGroup(child, 'SIGKILL');
              resolve();
            });
            killGroup(child, 'SIGTERM');
          }),
      ),
    );
  }
}

/** Last resort if a launcher exits without stopping its children: one exit listener for every group. */
const liveGroups = new Set<ProcessGroup>();
process.once('exit', () => {
  for (const group of liveGroups) group.killAll();
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (!child.pid) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

/** Resolves once the child has written (stdout or stderr) a line matching `pattern`; rejects on a time-out or an early exit. */
export function outputMatches(child: ChildProcess, pattern: RegExp, timeoutMs: number, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not print ${pattern} within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-4_096);
      if (pattern.test(seen)) {
        clearTimeout(timer);
        child.stderr?.off('data', onData);
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (code ${code}) before it was ready`));
    });
  });
}
