import { proxyActivities } from '@temporalio/workflow';
import type { HousekeepingActivities, HousekeepingInput, HousekeepingResult } from '../activities/housekeeping/housekeeping.js';

const { purgeExpired } = proxyActivities<HousekeepingActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', maximumAttempts: 3 },
});

/** One housekeeping pass, started by the housekeeping schedule (workers/housekeeping-schedule.ts); its result counts the rows purged. */
export async function housekeepingWorkflow(input: HousekeepingInput): Promise<HousekeepingResult> {
  return purgeExpired(input);
}
