import { cpSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * `source` (a file or a folder) kept in the machine's cache as `target`, whole or not at all: copied
 * beside it, then renamed, so that another run reading the cache never sees half of it. A file
 * replaces the one there; a folder another run kept first (the same content) stays.
 */
export function keepWhole(source: string, target: string): void {
  mkdirSync(dirname(target), { recursive: true });
  const partial = `${target}.${process.pid}`;
  cpSync(source, partial, { recursive: true });
  try {
    renameSync(partial, target);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (!['ENOTEMPTY', 'EEXIST'].includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  }
}

/**
 * The entries of `folder` whose names `named` matches, past the newest `count`, removed: a cache keyed
 * by content keeps the few a branch may come back to, never an unbounded number.
 */
export function keepNewest(folder: string, count: number, named: RegExp): void {
  if (!existsSync(folder)) return;
  const kept = readdirSync(folder)
    .filter((name) => named.test(name))
    .sort((a, b) => statSync(join(folder, b)).mtimeMs - statSync(join(folder, a)).mtimeMs);
  for (const old of kept.slice(count)) rmSync(join(folder, old), { recursive: true, force: true });
}
