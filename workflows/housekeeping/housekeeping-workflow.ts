import { patched, proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities, HousekeepingResult } from '../../activities/housekeeping/housekeeping.js';

const { purgeExpired, rollUpFlowHealth } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

/** Since issue 32 a pass also sums each shop's flow health up to five minutes ago. */
const FLOW_HEALTH_SUMMED = 'flow-health-summed';

/**
 * One housekeeping pass, started by the housekeeping schedule (workflows/housekeeping/housekeeping-starter.ts); its
 * result counts the rows purged. Its bounds are the worker's settings, never its input: runs started
 * before passed `{ attemptRetentionDays }`, so any input is accepted (they still replay) and ignored
 * (a forged start purges only what the configured retention purges anyway).
 */
export async function housekeepingWorkflow(..._ignored: unknown[]): Promise<HousekeepingResult> {
  const purged = await purgeExpired();
  // Passes of older versions ended with the purge; they replay as they ran.
  if (patched(FLOW_HEALTH_SUMMED)) await rollUpFlowHealth();
  return purged;
}
