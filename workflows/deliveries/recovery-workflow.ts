import {
  continueAsNew,
  defineQuery,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  startChild,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { RecoveryActivities, RecoveryRequest } from '../../activities/deliveries/delivery-recovery.js';
import type { RecoveryCursor } from '../../domain/flows/index.js';
import { deliveryWorkflow, type DeliveryInput } from './delivery-workflow.js';
import { deliveryWorkflowId, runMetadata, searchAttributes } from './delivery-run-options.js';

/**
 * Children a run starts before it continues as new: a child is about five history events, its page and
 * timer a few more, so a run stays near 10,000 events, well inside Temporal's limits (it continues
 * sooner when the server suggests it).
 */
const CHILDREN_PER_RUN = 1_000;
/** One timer at most a second: above 60 a minute, each tick starts several children at once. */
const TICK_MS = 1_000;

/** Reads the database (local: a marker in the history, no task through the server); retried until the database answers. */
const { nextResends } = proxyLocalActivities<RecoveryActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/** Where a batch is: what it found at the start, resent (children started), skipped (resent by hand, or gone), and whether it is over. */
export interface RecoveryProgress {
  since: string;
  until: string;
  perMinute: number;
  found: number;
  resent: number;
  skipped: number;
  done: boolean;
}

export const recoveryProgressQuery = defineQuery<RecoveryProgress>('recoveryProgress');

export interface RecoveryInput {
  request: RecoveryRequest;
  /** What the runs before this one did, when the batch continued as new. */
  carried?: { cursor: RecoveryCursor; resent: number; skipped: number };
  /** CHILDREN_PER_RUN unless a test needs a batch to continue as new sooner. */
  childrenPerRun?: number;
}

/** How many children a tick starts and how long it lasts, for `perMinute` resends a minute. */
export function recoveryTicks(perMinute: number): { perTick: number; tickMs: number } {
  const perTick = Math.max(1, Math.ceil((perMinute * TICK_MS) / 60_000));
  return { perTick, tickMs: Math.round((perTick * 60_000) / perMinute) };
}

/**
 * `delivery-recovery:<flowId>:<since>`: the flow's failed deliveries since `since`, resent at the
 * chosen pace. Each tick reads the next few (just before starting them) and starts each as a child:
 * the same delivery workflow, id and sealed request a single resend starts, so a delivery resent by
 * hand meanwhile is not sent twice at once (its start is refused: counted as skipped), and one
 * delivered since is not sent again. The children outlive the batch (ABANDON): their retries take
 * their own schedule, and what they come to is read from them (ParentWorkflowId), not awaited here.
 */
export async function deliveryRecoveryWorkflow(input: RecoveryInput): Promise<RecoveryProgress> {
  const { request } = input;
  const progress: RecoveryProgress = {
    since: request.since,
    until: request.until,
    perMinute: request.perMinute,
    found: request.found,
    resent: input.carried?.resent ?? 0,
    skipped: input.carried?.skipped ?? 0,
    done: false,
  };
  setHandler(recoveryProgressQuery, () => progress);
  const { perTick, tickMs } = recoveryTicks(request.perMinute);
  let cursor: RecoveryCursor | null = input.carried?.cursor ?? null;
  let passedHere = 0;
  for (;;) {
    const page = await nextResends(request, cursor, perTick);
    const started = (await Promise.all(page.resends.map(resendAsChild))).filter(Boolean).length;
    progress.resent += started;
    progress.skipped += page.passed - started;
    passedHere += page.passed;
    setCurrentDetails(`**Resent** ${progress.resent} of ${progress.found}; skipped ${progress.skipped}`);
    if (!page.cursor) break;
    cursor = page.cursor;
    await sleep(tickMs);
    if (passedHere >= (input.childrenPerRun ?? CHILDREN_PER_RUN) || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof deliveryRecoveryWorkflow>({
        ...input,
        carried: { cursor, resent: progress.resent, skipped: progress.skipped },
      });
    }
  }
  // What was found and not resent here was resent by hand, delivered or purged meanwhile.
  progress.found = Math.max(progress.found, progress.resent + progress.skipped);
  progress.skipped = progress.found - progress.resent;
  progress.done = true;
  return progress;
}

/** Starts one resend as a child; false when its delivery workflow is running (a resend by hand) or was delivered since. */
async function resendAsChild(resend: DeliveryInput): Promise<boolean> {
  try {
    await startChild(deliveryWorkflow, {
      workflowId: deliveryWorkflowId(resend.flowId, resend.eventId),
      args: [resend],
      // A failed delivery may run again; a delivered one (closed as Completed) may not.
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      parentClosePolicy: 'ABANDON',
      typedSearchAttributes: searchAttributes(resend),
      ...runMetadata(resend),
    });
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}
