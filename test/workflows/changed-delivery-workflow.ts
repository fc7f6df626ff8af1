import { sleep } from '@temporalio/workflow';

/**
 * A delivery workflow changed without versioning: it waits before its first attempt. Replaying a
 * recorded delivery against it must fail, which shows the replay test can catch such a change.
 */
export async function deliveryWorkflow(): Promise<void> {
  await sleep('1 second');
}
