import type { ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { crashLocalTemporal, ensureTemporal } from '../../scripts/bootstrap/temporal.js';
import { freePort, waitFor } from '../../scripts/bootstrap/ports.js';
import { outputMatches, ProcessGroup } from '../../scripts/processes.js';
import { startBenchProcess } from '../built-platform.js';

/** The soak's processes, each twice as a deployment runs them, and the local Temporal server (dev or cluster). */
export type Component = 'api-a' | 'api-b' | 'worker-a' | 'worker-b' | 'relay-a' | 'relay-b' | 'temporal';
const PROCESSES = ['api-a', 'api-b', 'worker-a', 'worker-b', 'relay-a', 'relay-b'] as const;

export interface UnexpectedExit {
  name: string;
  code: number | null;
  atMs: number;
}

const READY_MS = 120_000;

/**
 * The soak's stack on top of the bootstrapped services: each process started as `npm run dev` starts
 * it, readiness awaited, and killed with SIGKILL and started again on demand. A process that exits on
 * its own is recorded and started again a second later, as a supervisor would (systemd, Kubernetes).
 */
export class SoakStack {
  readonly unexpectedExits: UnexpectedExit[] = [];
  private readonly group: ProcessGroup;
  private stopping = false;

  private readonly env: Record<string, string>;
  readonly apiUrls: Record<'api-a' | 'api-b', string>;
  private readonly temporalAddress: string;
  private readonly startedAt: number;
  private readonly log: WriteStream;

  private constructor(
    env: Record<string, string>,
    apiUrls: Record<'api-a' | 'api-b', string>,
    temporalAddress: string,
    startedAt: number,
    log: WriteStream,
  ) {
    this.env = env;
    this.apiUrls = apiUrls;
    this.temporalAddress = temporalAddress;
    this.startedAt = startedAt;
    this.log = log;
    this.group = new ProcessGroup(
      (name, code) => {
        if (this.stopping) return;
        this.unexpectedExits.push({ name, code, atMs: Date.now() - this.startedAt });
        setTimeout(() => void this.start(name as Component).catch(() => undefined), 1_000);
      },
      (line) => this.log.write(line),
    );
  }

  /** The processes' output goes to `logFile`, so that the soak's progress lines stay readable. */
  static async start(env: Record<string, string>, temporalAddress: string, startedAt: number, logFile: string): Promise<SoakStack> {
    const portA = await freePort(4300);
    const portB = await freePort(portA + 1);
    const stack = new SoakStack(
      env,
      { 'api-a': `http://127.0.0.1:${portA}`, 'api-b': `http://127.0.0.1:${portB}` },
      temporalAddress,
      startedAt,
      createWriteStream(logFile, { flags: 'a' }),
    );
    await Promise.all(PROCESSES.map((name) => stack.start(name)));
    return stack;
  }

  /** Starts one process (or the Temporal server) and resolves once it is ready for work. */
  async start(component: Component): Promise<void> {
    if (component === 'temporal') {
      // The bootstrap's own start (SHOPFLOW_TEMPORAL): the dev server on the same SQLite file, or the cluster on
      // its PostgreSQL databases; the same ports either way (.data/temporal*/server.json). The cluster's UI follows it.
      const { address } = await ensureTemporal();
      if (address !== this.temporalAddress) throw new Error(`Temporal came back on ${address}, not ${this.temporalAddress}`);
      return;
    }
    if (component.startsWith('worker')) return this.ready(this.startProcess(component, 'workers/worker.ts'), /worker polling task queue/);
    if (component.startsWith('relay')) return this.ready(this.startProcess(component, 'workers/relay.ts'), /outbox relay started/);
    const url = this.apiUrls[component as 'api-a' | 'api-b'];
    this.startProcess(component, 'api/server.ts', { PORT: new URL(url).port });
    await waitFor(component, async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok === true, READY_MS);
  }

  /** SIGKILL (the whole process group), then down for `downMs`. */
  async kill(component: Component, downMs: number): Promise<void> {
    if (component === 'temporal') {
      if (!(await crashLocalTemporal())) throw new Error('no local Temporal server to kill');
    } else {
      await this.group.kill(component, 'SIGKILL');
    }
    await new Promise((resolve) => setTimeout(resolve, downMs));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.group.stopAll();
    await new Promise((resolve) => this.log.end(resolve));
  }

  private startProcess(name: Component, entry: string, extra: Record<string, string> = {}): ChildProcess {
    return startBenchProcess(this.group, name, entry, { ...this.env, ...extra });
  }

  private ready(child: ChildProcess, line: RegExp): Promise<void> {
    return outputMatches(child, line, READY_MS, child.spawnargs.at(-1) ?? 'process');
  }
}
