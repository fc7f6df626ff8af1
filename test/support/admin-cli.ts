import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import { projectRoot, typescriptImports } from '../../scripts/bootstrap/paths.js';
import { runAdmin } from '../../scripts/admin/cli.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs one admin command line against the given database, in this process: what `npm run -s admin`
 * runs once its process has started (scripts/admin/main.ts), its exit status and both streams kept.
 * A start of its own is about a second of loading for each of the suite's many commands;
 * `runAdminProcess` is the whole process, for what only a process shows.
 */
export async function runAdminCli(appUrl: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const result = { code: 0, stdout: '', stderr: '' };
  try {
    result.code = await runAdmin(args, {
      env: { ...process.env, APP_DATABASE_URL: appUrl, ...env },
      out: (text) => (result.stdout += text),
      err: (text) => (result.stderr += text),
    });
  } catch (error) {
    // What the process would die of: status 1, the stack on stderr.
    result.code = 1;
    result.stderr += String((error as Error).stack ?? error);
  }
  return result;
}

/** Runs `npm run -s admin -- …` as a script would, in a process of its own. */
export function runAdminProcess(appUrl: string, args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...typescriptImports, join(projectRoot, 'scripts', 'admin', 'main.ts'), ...args],
      { cwd: projectRoot, env: { ...process.env, APP_DATABASE_URL: appUrl } },
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
