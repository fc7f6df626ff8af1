import { cpSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';

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
