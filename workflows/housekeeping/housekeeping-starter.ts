import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type Client, type ScheduleOptionsAction } from '@temporalio/client';

export const HOUSEKEEPING_EVERY = '5 minutes';

/**
 * One schedule per task queue (`shopflow-housekeeping` for the default queue `shopflow`): runs that
 * share a Temporal server (`npm run dev` and `npm test`'s workers on their own queues) must not take
 * over each other's schedule and point it at a queue no worker will poll again.
 */
export function housekeepingScheduleId(taskQueue: string): string {
  return `${taskQueue}-housekeeping`;
}

/**
 * The housekeeping schedule of `taskQueue` (visible in the Temporal UI under Schedules): every five
 * minutes, one `housekeepingWorkflow` on that queue, with no input (the worker's settings bound the purge).
 * Idempotent: every worker start creates it, or brings an existing one to this spec (an input an older
 * version gave it is dropped).
 */
export async function ensureHousekeepingSchedule(client: Client, options: { taskQueue: string; scheduleId?: string }): Promise<void> {
  const scheduleId = options.scheduleId ?? housekeepingScheduleId(options.taskQueue);
  const action: ScheduleOptionsAction = {
    type: 'startWorkflow',
    workflowType: 'housekeepingWorkflow',
    workflowId: scheduleId,
    taskQueue: options.taskQueue,
    args: [],
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

/** Removes `taskQueue`'s schedule: a run on a queue of its own (a test, the soak) ends with it. */
export async function removeHousekeepingSchedule(client: Client, taskQueue: string): Promise<void> {
  await client.schedule.getHandle(housekeepingScheduleId(taskQueue)).delete();
}
