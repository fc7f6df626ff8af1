import { availableParallelism } from 'node:os';
import { cpuTotal } from './cpu-usage.js';
import type { DeliveryPhase } from './scenarios/delivery.js';
import type { CeilingResults } from './scenarios/temporal-ceiling.js';

/** Issue 34's delivery goals: CPU per delivery at saturation (the last, highest rate) within 1.5× an empty workflow's, and p50 under 100 ms at 50 events/s. */
const CPU_OVER_EMPTY_WORKFLOW = 1.5;
const P50_AT_50_PER_SECOND_MS = 100;

/**
 * Prints each delivery goal beside its figure of the same run. A delivery's CPU leaves out the
 * bench's receiver (the integrator's server, not Shopflow); the empty workflow's counts its starter
 * and worker (the bench process) and the server.
 */
export function printDeliveryGoals(ceiling: CeilingResults, phases: readonly DeliveryPhase[]): void {
  const saturated = phases.at(-1);
  if (saturated) {
    const delivery = cpuTotal(saturated.cpuMsPerDelivery, ['bench']);
    const empty = cpuTotal(ceiling.cpuMsPerWorkflow);
    console.log(
      `CPU per delivery at ${saturated.targetPerSecond}/s ÷ an empty workflow's: ${delivery.toFixed(1)} ÷ ${empty.toFixed(1)} ms = ` +
        `${(delivery / empty).toFixed(2)} (goal ≤ ${CPU_OVER_EMPTY_WORKFLOW})`,
    );
  }
  const at50 = phases.find((phase) => phase.targetPerSecond === 50);
  if (at50)
    console.log(
      `p50 at 50 events/s: ${at50.p50Ms.toFixed(0)} ms (goal < ${P50_AT_50_PER_SECOND_MS} ms), load average ${at50.loadAverage.toFixed(1)} on ${availableParallelism()} cores`,
    );
}
