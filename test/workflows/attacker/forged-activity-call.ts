import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';

/**
 * An attacker's own workflow, run by the attacker's own worker on a queue of their own: it schedules
 * one of Shopflow's activities on Shopflow's task queue with arguments of its choosing (issue 47).
 * Answers `ran` when the activity completed, else the failure type it ended with.
 */
export async function forgedActivityCall(taskQueue: string, activity: string, args: unknown[]): Promise<string> {
  const activities = proxyActivities<Record<string, (...args: unknown[]) => Promise<unknown>>>({
    taskQueue,
    startToCloseTimeout: '20 seconds',
    retry: { maximumAttempts: 1 },
  });
  try {
    await activities[activity]!(...args);
    return 'ran';
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    return cause instanceof ApplicationFailure ? `${cause.type ?? 'Error'}${cause.nonRetryable ? '' : ' (retryable)'}` : String(error);
  }
}
