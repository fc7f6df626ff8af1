import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMENT_HEADER } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const SKIPPED = new Set(['node_modules', '.data', '.git', 'test', 'coverage', 'dist']);
const MAX_LINES = 400;
/** A generator's output (`npm run web:types`, `npm run client:types`): one file per run, never edited or read line by line. */
const GENERATED = '.generated.ts';

/** Every TypeScript source of the project outside the tests (and outside SQL migrations, which are not TypeScript). */
function sources(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return SKIPPED.has(name) ? [] : sources(path);
    return /\.(ts|tsx|mjs)$/.test(name) ? [path] : [];
  });
}

describe('file size', () => {
  it(`keeps every source file outside test/ under ${MAX_LINES} lines, generated files aside`, () => {
    const files = sources(root);
    expect(files.length).toBeGreaterThan(50);
    const oversized = files
      .filter((file) => !file.endsWith(GENERATED))
      .map((file) => ({ file: relative(root, file), lines: readFileSync(file, 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(oversized).toEqual([]);
  });

  it(`exempts generator output only: every ${GENERATED} file opens with the generator's header`, () => {
    const named = sources(root).filter((file) => file.endsWith(GENERATED));
    expect(named.length).toBeGreaterThan(0);
    const handWritten = named.filter((file) => !readFileSync(file, 'utf8').startsWith(COMMENT_HEADER)).map((file) => relative(root, file));
    expect(handWritten).toEqual([]);
  });
});
