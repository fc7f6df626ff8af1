import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from './paths.js';
import { step } from './progress.js';
import { runCommand } from './run-command.js';

/**
 * The Go client generator the suite tries the public document with (test/api-contract/generated-clients.test.ts),
 * pinned, and the version of its runtime library that the generated client imports.
 */
export const OAPI_CODEGEN_VERSION = 'v2.8.2';
export const OAPI_CODEGEN_RUNTIME_VERSION = 'v1.9.0';
const buildDir = join(cacheDir, `oapi-codegen-${OAPI_CODEGEN_VERSION}`);
/** The generator's command, once `ensureOapiCodegen` has run. */
export const oapiCodegenBin = join(buildDir, 'oapi-codegen');

/** oapi-codegen built with `go install` through the Go module proxy, once per machine (shared by every clone). */
export async function ensureOapiCodegen(): Promise<string> {
  if (existsSync(oapiCodegenBin)) return oapiCodegenBin;
  await step(`building oapi-codegen ${OAPI_CODEGEN_VERSION} with go install into ${buildDir} (once per machine)`, () =>
    runCommand('go', ['install', `github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@${OAPI_CODEGEN_VERSION}`], {
      env: { ...process.env, GOBIN: buildDir, GOFLAGS: '-mod=mod' },
    }),
  );
  return oapiCodegenBin;
}
