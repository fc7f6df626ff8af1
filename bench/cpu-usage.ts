import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { projectRoot } from '../scripts/bootstrap/paths.js';
import { builtPlatformRoot } from './built-platform.js';

/** CPU time per process group, read from Linux's `/proc` (the bench's "where did the time go"). */
export type CpuGroups = Record<string, number>;

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/**
 * Only this clone's processes count: other clones on the machine run workers, relays and servers with
 * the same command names. Ours name the clone's folder in their command line (entry points, the
 * Temporal database file) or run in it (PostgreSQL's backends run in their data directory); the API,
 * the worker and the relay run from the run's build copy (bench/built-platform.ts), in it.
 */
function classify(pid: number, commandLine: string): string | undefined {
  if (pid === process.pid) return 'bench';
  const roots = [projectRoot, builtPlatformRoot()].filter((root) => root !== undefined);
  if (!roots.some((root) => commandLine.includes(root))) {
    const cwd = `${readlinkSync(`/proc/${pid}/cwd`)}/`;
    if (!roots.some((root) => cwd.startsWith(root))) return undefined;
  }
  if (/workers\/worker\.[jt]s/.test(commandLine)) return 'worker';
  if (/workers\/relay\.[jt]s/.test(commandLine)) return 'relay';
  if (/api\/server\.[jt]s/.test(commandLine)) return 'api';
  if (commandLine.includes('chat-simulator-server.ts')) return 'chat-simulator';
  if (commandLine.includes('bare-chat-server.ts')) return 'bare-chat';
  if (commandLine.includes('relay-chat-server.ts')) return 'relay-chat';
  // The server binary of the dev server or the cluster (`--env dev` or `--env cluster`), not the UI's.
  if (/\/temporal-server-v[^/]+\/server\s/.test(commandLine)) return 'temporal';
  // Backends of Temporal's own role (and vacuum of its databases) apart from Shopflow's: a cluster's database is sized on its own.
  if (/^postgres: (temporal \S+ |autovacuum worker temporal)/.test(commandLine)) return 'postgres-temporal';
  if (commandLine.startsWith('postgres')) return 'postgres';
  return undefined;
}

/** Milliseconds of CPU (user + system) each known process group has used so far. */
export function cpuSnapshot(): Map<number, { group: string; ms: number }> {
  const snapshot = new Map<number, { group: string; ms: number }>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const group = classify(pid, commandLine);
      if (!group) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the parenthesised command name: utime and stime are the 12th and 13th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      snapshot.set(pid, { group, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND });
    } catch {
      // the process ended between listing and reading
    }
  }
  return snapshot;
}

/** CPU milliseconds per group used between two snapshots (processes born in between count from zero). */
export function cpuBetween(
  before: Map<number, { group: string; ms: number }>,
  after: Map<number, { group: string; ms: number }>,
): CpuGroups {
  const groups: CpuGroups = {};
  for (const [pid, { group, ms }] of after) {
    groups[group] = (groups[group] ?? 0) + ms - (before.get(pid)?.ms ?? 0);
  }
  return groups;
}

/** CPU milliseconds per unit of work (a delivery, a push), to a tenth. */
export function cpuPer(cpu: CpuGroups, count: number): CpuGroups {
  return Object.fromEntries(Object.entries(cpu).map(([group, ms]) => [group, Math.round((ms / Math.max(1, count)) * 10) / 10]));
}

/** The CPU of every group but those `without`, in all. */
export function cpuTotal(cpu: CpuGroups, without: readonly string[] = []): number {
  return Object.entries(cpu).reduce((sum, [group, ms]) => (without.includes(group) ? sum : sum + ms), 0);
}

/** `api 1.2 ms, temporal 3.4 ms, …` in a stable order. */
export function formatCpu(cpu: CpuGroups): string {
  return Object.entries(cpu)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([group, ms]) => `${group} ${ms.toFixed(1)} ms`)
    .join(', ');
}
