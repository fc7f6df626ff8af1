import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { say } from '../scripts/bootstrap/progress.js';
import { buildCopy } from '../scripts/built-copy.js';
import type { ProcessGroup } from '../scripts/processes.js';

/** The entry points the image runs. */
const PLATFORM_ENTRIES = new Set(['api/server.ts', 'workers/worker.ts', 'workers/relay.ts']);
/** `npm run build`'s output, made once per bench run at the first platform process, removed when the run ends. */
let built: string | undefined;

/**
 * Starts `entry` in `group`: the API, the worker and the relay from the build, with node alone, as
 * the image runs them; the bench's own programs (receivers, baselines, the noisy shop) from the
 * sources with tsx. Under tsx the platform costs more CPU than deployed (source maps on every error's
 * stack, the loader): its figures would not be a deployment's (docs/capacity.md, "Noisy neighbours").
 */
export function startBenchProcess(group: ProcessGroup, name: string, entry: string, env: Record<string, string>): ChildProcess {
  if (!PLATFORM_ENTRIES.has(entry)) return group.startTs(name, entry, env);
  built ??= build();
  return group.startBuilt(name, built, entry, env);
}

/** The build copy the platform's processes run from, once the run has made it (bench/cpu-usage.ts counts them by it). */
export const builtPlatformRoot = (): string | undefined => built;

function build(): string {
  say('› building the API, the worker and the relay as the image does (npm run build, in a copy)…');
  const started = Date.now();
  const copy = buildCopy();
  process.once('exit', () => rmSync(copy, { recursive: true, force: true }));
  say(`✓ built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return copy;
}
