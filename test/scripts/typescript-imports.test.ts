import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { typescriptImports } from '../../scripts/bootstrap/paths.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/**
 * How the project's processes run their TypeScript (scripts/typescript-imports.mjs, decision 0265):
 * Node erases the types, and an import of `./x.js` loads `./x.ts`, even beside a compiled `x.js`.
 */
describe("the project's TypeScript on Node", () => {
  it('runs an entry point whose imports name the compiled files, loading the sources', () => {
    const dir = temporaryDir('typescript-imports');
    writeFileSync(join(dir, 'main.ts'), "import { answer } from './answer.js';\nconst shown: string = answer();\nconsole.log(shown);\n");
    writeFileSync(join(dir, 'answer.ts'), "export function answer(): string {\n  return 'from the source';\n}\n");
    writeFileSync(join(dir, 'answer.js'), "export function answer() {\n  return 'from a stale build';\n}\n");
    const run = (entry: string) => execFileSync(process.execPath, [...typescriptImports, join(dir, entry)], { encoding: 'utf8' }).trim();
    expect(run('main.ts')).toBe('from the source');

    // A `.js` import with no source beside it is the JavaScript file.
    writeFileSync(join(dir, 'plain.ts'), "import { helper } from './helper.js';\nconsole.log(helper());\n");
    writeFileSync(join(dir, 'helper.js'), "export const helper = () => 'plain JavaScript';\n");
    expect(run('plain.ts')).toBe('plain JavaScript');
  });
});
