import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Shopflow runs on Node.js 24, the current LTS (issue 48): the suite itself, every process it starts
 * (they find `node` first on PATH: scripts/on-node-lts.mjs), the image, and what package.json asks for.
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const major = (version: string) => Number(/^v?(\d+)\./.exec(version.trim())![1]);

describe('Node.js', () => {
  it('runs the suite, and the processes it starts, on Node 24 or newer whatever Node the machine has', () => {
    expect(major(process.versions.node)).toBeGreaterThanOrEqual(24);
    expect(major(execFileSync('node', ['--version']).toString())).toBeGreaterThanOrEqual(24);
  });

  it('is what package.json asks for and what the image is built on', () => {
    expect((JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node).toBe('>=24');
    expect(read('Dockerfile')).toMatch(/^FROM node:24-/m);
    for (const [name, script] of Object.entries((JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts))
      if (/\.ts\b/.test(script))
        expect({ name, script }).toEqual({ name, script: expect.stringMatching(/^node scripts\/on-node-lts\.mjs /) });
  });
});
