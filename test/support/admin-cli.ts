import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { projectRoot } from '../../scripts/bootstrap/paths.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run -s admin -- …` as a script would, against the given database; the exit code is kept. */
export function runAdminCli(appUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    // On this Node with tsx's loader: one process (the `tsx` command would start a second).
    execFile(
      process.execPath,
      ['--import', 'tsx', join(projectRoot, 'scripts', 'admin', 'main.ts'), ...args],
      { cwd: projectRoot, env: { ...process.env, APP_DATABASE_URL: appUrl, ...env } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    );
  });
}

/** A command that must succeed: exit 0 and exactly one JSON object on stdout, parsed. */
export async function adminCliJson<T = Record<string, string>>(
  appUrl: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<T> {
  const result = await runAdminCli(appUrl, args, env);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout.trim().split('\n')).toHaveLength(1);
  return JSON.parse(result.stdout) as T;
}
