import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** Each test file's seconds of wall time and of CPU, as the reporter writes them. */
export interface FileDurations {
  /** Set-up, import, hooks and tests. */
  seconds: Record<string, number>;
  /** Its CPU and that of the processes it started (test/support/file-cpu.ts). */
  cpuSeconds: Record<string, number>;
}

/**
 * A vitest reporter: each test file's seconds, written as JSON to `SHOPFLOW_FILE_DURATIONS` when the
 * run ends, for the suite's closing lines (scripts/suite-run.ts).
 */
export default class FileDurationsReporter implements Reporter {
  readonly #durations: FileDurations = { seconds: {}, cpuSeconds: {} };

  onTestModuleEnd(module: TestModule): void {
    const { environmentSetupDuration, prepareDuration, setupDuration, collectDuration, duration } = module.diagnostic();
    this.#durations.seconds[module.moduleId] =
      (environmentSetupDuration + prepareDuration + setupDuration + collectDuration + duration) / 1000;
    const { cpuSeconds } = module.meta();
    if (cpuSeconds !== undefined) this.#durations.cpuSeconds[module.moduleId] = cpuSeconds;
  }

  onTestRunEnd(): void {
    const file = process.env.SHOPFLOW_FILE_DURATIONS;
    if (file) writeFileSync(file, JSON.stringify(this.#durations));
  }
}
