import { ApplicationFailure, Context } from '@temporalio/activity';
import { hasValidSeal } from '../../domain/kernel/index.js';
import { UNSEALED_INPUT } from './shipment-failures.js';

/**
 * The workflow id of the activity's run, which a seal must name (domain/kernel/seals.ts): a sealed
 * input copied into another workflow does not verify there. Activities check, not workflows: any
 * workflow of the namespace may schedule an activity on Shopflow's task queue.
 */
export function runningWorkflowId(): string {
  const workflowId = Context.current().info.workflowExecution?.workflowId;
  if (!workflowId) throw ApplicationFailure.nonRetryable('an activity of Shopflow runs only in a workflow', UNSEALED_INPUT);
  return workflowId;
}

/** Fails the activity for good unless `sealed` was sealed with `key` for the running workflow. */
export function assertSealedForRun(key: string, sealed: object & { seal?: unknown }, what: string): void {
  const workflowId = runningWorkflowId();
  if (!hasValidSeal(key, sealed, workflowId)) {
    throw ApplicationFailure.nonRetryable(
      `${what} of ${workflowId} is not sealed with this server's key; nothing was done`,
      UNSEALED_INPUT,
    );
  }
}
