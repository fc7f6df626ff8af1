import { condition, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';

/** The model's stand-in for the push's create and record: one local activity of a few milliseconds. */
export interface PushModelActivities {
  pushModelStep(id: string): Promise<string>;
}

const { pushModelStep } = proxyLocalActivities<PushModelActivities>({ startToCloseTimeout: '10 seconds' });

/** The outcome of the push, as the API's update asks it (decision 0257). */
export const pushModelOutcome = defineUpdate<string>('push');

/**
 * A push's shape without its I/O (docs/behaviour/shipments.md): one local activity, its outcome answered to the
 * `push` update, then the run waits on as a tracking does.
 */
export async function pushModelWorkflow(id: string): Promise<void> {
  let outcome: string | null = null;
  setHandler(pushModelOutcome, async () => {
    await condition(() => outcome !== null);
    return outcome!;
  });
  outcome = await pushModelStep(id);
  await condition(() => false, '1 hour');
}
