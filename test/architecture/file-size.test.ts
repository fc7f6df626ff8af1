import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKIPPED = new Set(['node_modules', '.data', '.git', 'test', 'coverage', 'dist']);
const MAX_LINES = 400;

/** Every TypeScript source of the project outside the tests (and outside SQL migrations, which are not TypeScript). */
function sources(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return SKIPPED.has(name) ? [] : sources(path);
    // Generated types too: scripts/generated-types-files.ts splits them by resource and schema family.
    return /\.(ts|tsx|mjs)$/.test(name) ? [path] : [];
  });
}

describe('file size', () => {
  it(`keeps every source file outside test/ under ${MAX_LINES} lines`, () => {
    const files = sources(root);
    expect(files.length).toBeGreaterThan(50);
    const oversized = files
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(oversized).toEqual([]);
  });
});
