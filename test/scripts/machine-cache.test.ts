import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keepNewest, keepWhole } from '../../scripts/bootstrap/machine-cache.js';
import { temporaryDir } from '../support/temporary-dirs.js';

/** scripts/bootstrap/machine-cache.ts: what the web build and the packed client keep in the machine's cache. */
describe("the machine's cache", () => {
  it('keeps a folder whole, and the first of the same content when another run keeps it again', () => {
    const [cache, first, second] = [temporaryDir('cache'), temporaryDir('first'), temporaryDir('second')];
    writeFileSync(join(first, 'build.js'), 'first');
    writeFileSync(join(second, 'build.js'), 'second');
    keepWhole(first, join(cache, 'abc'));
    keepWhole(second, join(cache, 'abc'));
    expect(readdirSync(cache)).toEqual(['abc']);
    expect(readFileSync(join(cache, 'abc', 'build.js'), 'utf8')).toBe('first');
  });

  it('keeps the newest entries of a kind, and nothing else of the folder is touched', () => {
    const cache = temporaryDir('cache');
    const entries = ['aaaa', 'bbbb', 'cccc', 'dddd', 'eeee'];
    entries.forEach((name, age) => {
      mkdirSync(join(cache, name));
      const time = new Date(Date.UTC(2026, 0, 1 + age));
      utimesSync(join(cache, name), time, time);
    });
    mkdirSync(join(cache, 'aaaa.123'));
    keepNewest(cache, 3, /^[a-e]{4}$/);
    expect(readdirSync(cache).sort()).toEqual(['aaaa.123', 'cccc', 'dddd', 'eeee']);
  });
});
