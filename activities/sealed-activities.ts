import { ApplicationFailure, Context } from '@temporalio/activity';
import { hasValidSeal } from '../domain/kernel/index.js';

/**
 * The one check every activity of Shopflow passes before it runs (docs/security.md,
 * "The activity boundary"). Any workflow of the namespace may schedule any activity on Shopflow's task queues, with
 * any arguments, so an activity that acts for a shop takes as its first argument an input that
 * Shopflow sealed (domain/kernel/seals.ts) for the workflow now running it: one copied into another
 * workflow does not verify there. The workers register activities only through `sealedActivities`;
 * the few that act for no shop and take nothing from their caller are named in `unsealedActivities`.
 */

/** An activity whose first argument is a sealed input (what follows it is the workflow's own data); `never` for any other. */
type SealedActivity<F> = F extends (input: infer Input, ...rest: never[]) => Promise<unknown>
  ? Input extends { seal: string }
    ? F
    : never
  : never;
/** An activity that takes nothing: it acts only on the worker's own settings. */
type InputlessActivity = () => Promise<unknown>;

/** The workflow id of the activity's run, which a seal must name. */
export function runningWorkflowId(): string {
  const workflowId = Context.current().info.workflowExecution?.workflowId;
  if (!workflowId) throw ApplicationFailure.nonRetryable('an activity of Shopflow runs only in a workflow', 'UnsealedWorkflowInput');
  return workflowId;
}

/**
 * A delivery request names its run without a scope: the one delivery of its event to its flow runs as
 * `delivery:<flowId>:<eventId>` (workflows/deliveries/delivery-run-options.ts), fields the
 * seal covers. The relay and a recovery batch seal them so; a test-run's is sealed for its own run.
 */
function namesItsDelivery(key: string, input: object & { seal?: unknown }, workflowId: string): boolean {
  const { flowId, eventId } = input as { flowId?: unknown; eventId?: unknown };
  return workflowId === `delivery:${String(flowId)}:${String(eventId)}` && hasValidSeal(key, input);
}

/**
 * `activities`, each failing for good with `failureType` (nothing called, nothing written) unless its
 * first argument is sealed with `key` for the running workflow.
 */
export function sealedActivities<T extends { [Name in keyof T]: SealedActivity<T[Name]> }>(
  key: string,
  failureType: string,
  activities: T,
): T {
  return Object.fromEntries(
    Object.entries<(input: unknown, ...rest: never[]) => Promise<unknown>>(activities).map(([name, activity]) => [
      name,
      async (input: unknown, ...rest: never[]) => {
        const workflowId = runningWorkflowId();
        const sealed = typeof input === 'object' && input !== null ? (input as { seal?: unknown }) : undefined;
        if (!sealed || !(hasValidSeal(key, sealed, workflowId) || namesItsDelivery(key, sealed, workflowId)))
          throw ApplicationFailure.nonRetryable(
            `${name}: the input of ${workflowId} is not sealed with this server's key for it; nothing was done`,
            failureType,
          );
        return activity(sealed, ...rest);
      },
    ]),
  ) as T;
}

/** Activities that take no input: whatever a caller passes is dropped before they run. */
export function unsealedActivities<T extends Record<string, InputlessActivity>>(activities: T): T {
  return Object.fromEntries(Object.entries(activities).map(([name, activity]) => [name, () => activity()])) as T;
}
