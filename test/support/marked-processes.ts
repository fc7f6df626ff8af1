import { readdirSync, readFileSync } from 'node:fs';

/**
 * Processes whose environment holds `mark` (a `NAME=value` a test gave the command it started, which
 * every process under it inherits), with their command lines (Linux /proc).
 */
export function markedProcesses(mark: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(mark)) continue;
      found.set(Number(entry), readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' '));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
