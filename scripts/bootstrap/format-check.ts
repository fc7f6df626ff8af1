import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { check, getFileInfo, resolveConfig, version } from 'prettier';
import { projectFiles } from './project-files.js';

/**
 * `prettier --check .` for `npm test`, with a cache a fresh clone can use. Prettier's own `--cache`
 * keys each result by a hash of the file's options, which hold its absolute path, so a clone anywhere
 * else misses every entry (about 24 s of CPU a fresh run). This one keeps, for each file found
 * formatted, a hash of Prettier's version, its path in the project, its options and its content.
 * The files are Prettier's: the project's (project-files.ts) less what Prettier ignores or cannot
 * parse. Answers how many files are formatted, and how many of them were checked anew.
 */
export async function checkFormatting(root: string, cacheFile: string): Promise<{ files: number; checked: number }> {
  const known = new Set<string>(existsSync(cacheFile) ? (JSON.parse(readFileSync(cacheFile, 'utf8')) as string[]) : []);
  const formatted: string[] = [];
  const unformatted: string[] = [];
  let checked = 0;
  for (const file of projectFiles(root)) {
    const filepath = join(root, file);
    const info = await getFileInfo(filepath, { ignorePath: [join(root, '.gitignore'), join(root, '.prettierignore')] });
    if (info.ignored || !info.inferredParser) continue;
    const source = readFileSync(filepath, 'utf8');
    const options = await resolveConfig(filepath, { editorconfig: true });
    const key = createHash('sha256')
      .update(JSON.stringify([version, file, options, source]))
      .digest('base64url');
    if (!known.has(key)) {
      checked++;
      if (!(await check(source, { ...options, filepath }))) {
        unformatted.push(file);
        continue;
      }
    }
    formatted.push(key);
  }
  writeFileSync(cacheFile, JSON.stringify(formatted));
  if (unformatted.length > 0)
    throw new Error(
      `Prettier would format ${unformatted.length} file(s) (npm run format):\n${unformatted.map((file) => `  ${file}`).join('\n')}`,
    );
  return { files: formatted.length, checked };
}
