import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../scripts/bootstrap/paths.js';

/**
 * A path a comment or a page names is a path of the repository: a reader who follows it finds the
 * file (and, with `:line`, a file that long). Code is read in its comments only (a test's made-up
 * names live in strings); pages whole. Decision records and applied migrations are history, kept as
 * they were written; docs/contract/ holds copies of the team's shared documents.
 */
const TOP_FOLDERS =
  'api|domain|workflows|activities|workers|adapters|db|config|telemetry|scripts|test|web|docs|simulators|bench|clients|examples|deploy|patches';
const NAMED_PATH = new RegExp(
  `(?<![\\w./-])((?:${TOP_FOLDERS})/[\\w.\\-/]+?\\.(?:ts|tsx|md|sql|json|mjs|yml|yaml|go|py|patch))(?::(\\d+))?(?![\\w/])`,
  'g',
);
const COMMENT = /\/\/[^\n]*|\/\*[\s\S]*?\*\//g;

function readable(file: string): boolean {
  const history = ['docs/decisions/', 'db/migrations/'];
  // The contract's copies name the team's own layout, kept byte for byte.
  if ([...history, 'docs/contract/'].some((folder) => file.startsWith(folder)) || file.endsWith('.generated.ts')) return false;
  return /\.(?:ts|tsx|mjs|md)$/.test(file);
}

/** Each named path that does not lead to a file of that length, as `file: path`. */
function brokenPaths(): string[] {
  const files = execFileSync('git', ['ls-files'], { cwd: projectRoot, encoding: 'utf8' }).split('\n').filter(readable);
  return files.flatMap((file) => {
    const text = readFileSync(join(projectRoot, file), 'utf8');
    const read = file.endsWith('.md') ? [text] : (text.match(COMMENT) ?? []);
    return read.flatMap((part) =>
      [...part.matchAll(NAMED_PATH)].flatMap(([, path, line]) => {
        const target = join(projectRoot, path!);
        if (!existsSync(target)) return [`${file}: ${path}`];
        if (line && Number(line) > readFileSync(target, 'utf8').split('\n').length) return [`${file}: ${path}:${line}`];
        return [];
      }),
    );
  });
}

describe('paths named in comments and pages', () => {
  it('all lead to files of the repository', () => {
    expect(brokenPaths()).toEqual([]);
  });
});
