import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsAction } from '@temporalio/client';
import type { HousekeepingInput } from '../activities/housekeeping/housekeeping.js';

export const HOUSEKEEPING_SCHEDULE_ID = 'shopflow-housekeeping';
export const HOUSEKEEPING_EVERY = '5 minutes';

/**
 * The housekeeping schedule (visible in the Temporal UI under Schedules): every five minutes, one
 * `housekeepingWorkflow` on `taskQueue`. Idempotent: every worker start creates it, or brings an
 * existing one to this spec and input (a changed retention setting takes effect).
 */
export async function ensureHousekeepingSchedule(
  client: Client,
  options: { taskQueue: string; input: HousekeepingInput; scheduleId?: string },
): Promise<void> {
  const scheduleId = options.scheduleId ?? HOUSEKEEPING_SCHEDULE_ID;
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'housekeepingWorkflow',
    workflowId: scheduleId,
    taskQueue: options.taskQueue,
    args: [options.input],
  };
  const spec = { intervals: [{ every: HOUSEKEEPING_EVERY }] };
  const policies = { overlap: ScheduleOverlapPolicy.SKIP };
  try {
    await client.schedule.create({ scheduleId, spec, action, policies });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action, policies }));
  }
}
