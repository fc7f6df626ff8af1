import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * A vitest reporter: each test file's seconds (set-up, import, hooks and tests), written as JSON to
 * `SHOPFLOW_FILE_DURATIONS` when the run ends, for the suite's closing lines (scripts/suite-run.ts).
 */
export default class FileDurationsReporter implements Reporter {
  readonly #seconds: Record<string, number> = {};

  onTestModuleEnd(module: TestModule): void {
    const { environmentSetupDuration, prepareDuration, setupDuration, collectDuration, duration } = module.diagnostic();
    this.#seconds[module.moduleId] = (environmentSetupDuration + prepareDuration + setupDuration + collectDuration + duration) / 1000;
  }

  onTestRunEnd(): void {
    const file = process.env.SHOPFLOW_FILE_DURATIONS;
    if (file) writeFileSync(file, JSON.stringify(this.#seconds));
  }
}
