import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeTemporaryDirs, temporaryDir } from '../support/temporary-dirs.js';

/** The suite's temporary folders (test/support/temporary-dirs.ts): each goes, whole, when its file ends. */
describe("a test file's temporary folders", () => {
  it('are removed with everything in them, once', () => {
    const [project, build] = [temporaryDir('temporary-project'), temporaryDir('temporary-build')];
    mkdirSync(join(project, 'node_modules', 'left'), { recursive: true });
    writeFileSync(join(project, 'node_modules', 'left', 'index.js'), 'export {};\n');
    writeFileSync(join(build, 'output'), 'built');
    removeTemporaryDirs();
    expect([existsSync(project), existsSync(build)]).toEqual([false, false]);
    expect(() => removeTemporaryDirs()).not.toThrow();
  });
});
