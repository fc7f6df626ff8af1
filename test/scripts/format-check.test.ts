import { execFileSync } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkFormatting } from '../../scripts/bootstrap/format-check.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/**
 * `npm test`'s Prettier check (scripts/bootstrap/format-check.ts) on a project of two files: it names
 * an unformatted file, and a clone elsewhere with the first one's cache checks no file again.
 */
function project(): string {
  const root = temporaryDir('format-check');
  writeFileSync(join(root, '.prettierrc.json'), '{ "singleQuote": true }\n');
  writeFileSync(join(root, '.prettierignore'), 'ignored.ts\n');
  writeFileSync(join(root, 'ignored.ts'), 'const  left =   "as it is"\n');
  writeFileSync(join(root, 'good.ts'), "export const good = 'yes';\n");
  writeFileSync(join(root, 'bad.ts'), 'export const bad =   "no"\n');
  execFileSync('git', ['init', '-q'], { cwd: root });
  execFileSync('git', ['add', '.'], { cwd: root });
  return root;
}

describe("npm test's Prettier check", () => {
  it('names the file Prettier would change, and a clone elsewhere reuses the cache', async () => {
    const root = project();
    const cache = join(temporaryDir('format-check-cache'), 'formatted.json');
    await expect(checkFormatting(root, cache)).rejects.toThrow(/1 file\(s\)[^]*\n {2}bad\.ts$/);

    writeFileSync(join(root, 'bad.ts'), "export const bad = 'no';\n");
    // Its files and the config file; the ignored one left out.
    expect(await checkFormatting(root, cache)).toEqual({ files: 3, checked: 1 });
    expect(await checkFormatting(root, cache)).toEqual({ files: 3, checked: 0 });

    const clone = temporaryDir('format-check-clone');
    cpSync(root, clone, { recursive: true });
    expect(await checkFormatting(clone, cache)).toEqual({ files: 3, checked: 0 });
    writeFileSync(join(clone, 'good.ts'), 'export const good =   "changed"\n');
    await expect(checkFormatting(clone, cache)).rejects.toThrow(/\n {2}good\.ts$/);
  });
});
